// `matchesAtLiteral` tries a regex only where its literal occurs: on crafted edge cases and
// on 2,000 seeded random texts built from the searched names and their near misses, it must
// answer what the plain regex over the whole text answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchesAtLiteral } from '../../../server/src/analysis/text-search';
import { seededRandom } from '../../perf/generate';

/** Each search as the rules wrote it before (one regex over the text) and as they ask it now. */
const SEARCHES: { name: string; plain: RegExp; anchored: (text: string) => boolean }[] = [
  {
    name: 'default device',
    plain: /\bset_default_device\s*\(|torch\.device\([^)]*\)\s*:/,
    anchored: (text) =>
      matchesAtLiteral(text, 'set_default_device', /\bset_default_device\s*\(/y) ||
      matchesAtLiteral(text, 'torch.device(', /torch\.device\([^)]*\)\s*:/y),
  },
  {
    name: 'checkpointer',
    plain: /\bModelCheckpoint\b|\bCheckpointer\b|\bCheckpointManager\b/,
    anchored: (text) =>
      matchesAtLiteral(text, 'Checkpoint', /\bCheckpoint(?:er|Manager)\b|(?<=\bModel)Checkpoint\b/y),
  },
];

const PIECES = [
  'set_default_device',
  'torch.set_default_device(',
  'xset_default_device(',
  'torch.device(',
  'torch.device("cuda")',
  '):',
  ')',
  ' ',
  '\n',
  ':',
  '(',
  'with ',
  'ModelCheckpoint',
  'Checkpoint',
  'Checkpointer',
  'CheckpointManager',
  'MyCheckpointer',
  'er',
  'Manager',
  '_',
  'x',
];

test('a regex tried where its literal occurs answers as over the whole text', () => {
  const crafted = [
    '',
    'set_default_device(',
    'x = 1\ntorch.set_default_device("cuda")',
    'my_set_default_device(1)',
    'with torch.device("cuda"):\n    pass',
    'torch.device("cuda") and torch.device(x):',
    'torch.device(\n"cuda"\n)\n:',
    'ModelCheckpoint',
    'MyModelCheckpoint, Checkpointer',
    'CheckpointerX Checkpoint CheckpointManager_',
  ];
  const random = seededRandom(11);
  const generated = Array.from({ length: 2_000 }, () =>
    Array.from(
      { length: 1 + Math.floor(random() * 12) },
      () => PIECES[Math.floor(random() * PIECES.length)],
    ).join(''),
  );
  let matched = 0;
  for (const { name, plain, anchored } of SEARCHES)
    for (const text of [...crafted, ...generated]) {
      const expected = plain.test(text);
      assert.equal(anchored(text), expected, `${name}: ${JSON.stringify(text)}`);
      if (expected) matched++;
    }
  // Both answers must occur often, or the comparison would prove little.
  assert.ok(matched > 400 && matched < 3_600, `${matched} texts matched`);
});
