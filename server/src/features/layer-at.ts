// The `shardlens/layerAt` request (placeholder until the module evaluator lands).
import type { FileModel } from '../analysis/file-model';
import type { Settings } from '../config/settings';
import type { LayerAtResult } from '../protocol';

/** The module under the cursor, or null. */
export function provideLayerAt(_input: {
  model: FileModel;
  position: { line: number; character: number };
  settings: Settings;
  workspace?: unknown;
}): LayerAtResult | null {
  return null;
}
