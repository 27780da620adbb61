// Facts computed once per FileModel (one document version) and shared by every rule and
// helper that asks: a whole-file scan done on first use, then a lookup. The FileModel is
// the owner, so a memo lives exactly as long as the document version it describes.
// Answers read from one subtree alone are kept across versions instead (`perSubtree`).
import type { SyntaxNode } from '../parse/syntax';
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

/**
 * Wraps `compute(holder, key)`, an answer read from nothing but `holder`'s subtree, so that
 * it runs once per holder and key, across document versions. The lowering reuses a node
 * only when its subtree is unchanged (its offsets move with an edit, its text and shape do
 * not), so an answer kept under a reused node still holds; a node the edit renewed starts
 * with none.
 */
export function perSubtree<K, T>(
  compute: (holder: SyntaxNode, key: K) => T,
): (holder: SyntaxNode, key: K) => T {
  const memo = new WeakMap<SyntaxNode, Map<K, T>>();
  return (holder, key) => {
    let answers = memo.get(holder);
    if (!answers) memo.set(holder, (answers = new Map()));
    if (answers.has(key)) return answers.get(key) as T;
    const answer = compute(holder, key);
    answers.set(key, answer);
    return answer;
  };
}
