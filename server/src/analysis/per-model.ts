// Facts computed once per FileModel (one document version) and shared by every rule and
// helper that asks: a whole-file scan done on first use, then a lookup. The FileModel is
// the owner, so a memo lives exactly as long as the document version it describes.
import type { FileModel } from './file-model';

/**
 * Wraps `compute` so that it runs at most once per FileModel; later calls return the
 * first result (undefined included).
 */
export function perModel<T>(compute: (model: FileModel) => T): (model: FileModel) => T {
  const memo = new WeakMap<FileModel, { value: T }>();
  return (model) => {
    let entry = memo.get(model);
    if (!entry) {
      entry = { value: compute(model) };
      memo.set(model, entry);
    }
    return entry.value;
  };
}
