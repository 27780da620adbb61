// Python sources shared by several test files.

/** A minimal training loop whose last loop line is `lastLine` (line 9, 1-based). */
export function hotLoopSource(lastLine = '        print(loss.item())'): string {
  return [
    'import torch',
    '',
    '',
    'def train(model, loader, optimizer):',
    '    for x, y in loader:',
    '        loss = model(x, y)',
    '        loss.backward()',
    '        optimizer.step()',
    lastLine,
    '',
  ].join('\n');
}
