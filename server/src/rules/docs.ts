// Where each rule's documentation page lives: `docs/rules/<CODE>.md`, shipped in the .vsix,
// and the link an editor shows for it: hosted docs when `shardlens.docs.baseUrl` is set,
// otherwise the client's "open rendered, read-only" command, otherwise the shipped file.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The client command that opens a shipped rule page as a rendered, read-only preview. */
export const OPEN_RULE_DOCS_COMMAND = 'shardlens.openRuleDocs';

/** Path of a rule's docs page relative to the extension or repository root. */
export function docsPath(code: string): string {
  return `docs/rules/${code}.md`;
}

/** A `file:` URI of the docs page under `root` (the extension folder, or the repository). */
export function docsUri(code: string, root: string): string {
  return pathToFileURL(join(root, docsPath(code))).href;
}

/**
 * The link for a rule's docs: `<baseUrl>/<CODE>.md` (or `baseUrl` with `{code}` replaced)
 * when hosted docs are configured; a `command:` link to {@link OPEN_RULE_DOCS_COMMAND} when
 * the client has it; the shipped file otherwise (the CLI, other editors).
 */
export function ruleDocsHref(input: {
  code: string;
  baseUrl: string;
  docsRoot: string;
  clientOpensDocs: boolean;
}): string {
  const { code, baseUrl, docsRoot, clientOpensDocs } = input;
  if (/^https?:\/\//i.test(baseUrl)) {
    return baseUrl.includes('{code}')
      ? baseUrl.replaceAll('{code}', code)
      : `${baseUrl.replace(/\/+$/, '')}/${code}.md`;
  }
  if (clientOpensDocs)
    return `command:${OPEN_RULE_DOCS_COMMAND}?${encodeURIComponent(JSON.stringify([code]))}`;
  return docsUri(code, docsRoot);
}
