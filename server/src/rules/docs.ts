// Where each rule's documentation page lives: `docs/rules/<CODE>.md`, shipped in the
// .vsix. The server and the CLI turn it into a file URI beside their bundle.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Path of a rule's docs page relative to the extension or repository root. */
export function docsPath(code: string): string {
  return `docs/rules/${code}.md`;
}

/** A `file:` URI of the docs page under `root` (the extension folder, or the repository). */
export function docsUri(code: string, root: string): string {
  return pathToFileURL(join(root, docsPath(code))).href;
}
