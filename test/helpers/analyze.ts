// Test helper: analyses Python text or a file with the real parser, FileModel and rules.
import { readFileSync } from 'node:fs';
import { initParser } from '../../server/src/parse/parser';
import { analyzeText, type FileAnalysis } from '../../server/src/analyzer';
import { mergeSettings, type PartialSettings } from '../../server/src/config/settings';
import { wasmDir } from './paths';

/** Analyses `text` with default settings plus `overrides`. */
export async function analyzeSource(
  text: string,
  overrides: PartialSettings = {},
  filePath: string | null = null,
): Promise<FileAnalysis> {
  const parser = await initParser({ wasmDir });
  return analyzeText({ parser, text, filePath, settings: mergeSettings(overrides) });
}

/** Analyses a file on disk. */
export async function analyzeFile(path: string, overrides: PartialSettings = {}): Promise<FileAnalysis> {
  return analyzeSource(readFileSync(path, 'utf8'), overrides, path);
}
