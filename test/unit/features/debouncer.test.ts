// The per-document debounce: a new request replaces the pending one, with a delay or none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Debouncer } from '../../../server/src/features/diagnostics';

const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 5));

test('a delay of 0 runs only the last task scheduled in one turn, after that turn', async () => {
  const debouncer = new Debouncer();
  const ran: number[] = [];
  for (const version of [1, 2, 3]) debouncer.schedule('a', 0, () => ran.push(version));
  debouncer.schedule('b', 0, () => ran.push(10));
  assert.deepEqual(ran, [], 'nothing runs before the messages of this turn are handled');
  await nextTurn();
  assert.deepEqual(ran, [3, 10]);
});

test('a positive delay waits, and a newer schedule or a cancel replaces the task', async () => {
  const debouncer = new Debouncer();
  const ran: string[] = [];
  debouncer.schedule('a', 30, () => ran.push('first'));
  debouncer.schedule('a', 30, () => ran.push('second'));
  debouncer.schedule('b', 0, () => ran.push('cancelled'));
  debouncer.cancel('b');
  await nextTurn();
  assert.deepEqual(ran, [], 'the delay has not passed');
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.deepEqual(ran, ['second']);
});
