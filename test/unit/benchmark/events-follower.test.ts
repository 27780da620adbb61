// Tests the events-file follower: new bytes only, partial lines and split UTF-8
// characters kept until complete, truncation, and a file that appears late.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EventsFollower } from '../../../client/src/benchmark/events-follower';

function tempFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'shardlens-follow-')), 'events.jsonl');
}

test('delivers complete lines once, keeping partial lines and split characters', async () => {
  const file = tempFile();
  fs.writeFileSync(file, '');
  const lines: string[] = [];
  const follower = new EventsFollower({ path: file, onLine: (l) => lines.push(l), pollMs: 10_000 });
  follower.start();
  const euro = Buffer.from('{"m":"€"}\n', 'utf8');
  fs.appendFileSync(file, '{"a":1}\n{"b":');
  await follower.poll();
  assert.deepEqual(lines, ['{"a":1}']);
  fs.appendFileSync(file, '2}\r\n');
  fs.appendFileSync(file, euro.subarray(0, 7)); // cuts the 3-byte euro sign
  await follower.poll();
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
  fs.appendFileSync(file, euro.subarray(7));
  await follower.poll();
  await follower.poll();
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"m":"€"}']);
  follower.stop();
  fs.appendFileSync(file, '{"after":"stop"}\n');
  await follower.poll();
  assert.equal(lines.length, 3);
});

test('starts over when the file is truncated, and waits for a file that does not exist yet', async () => {
  const file = tempFile();
  const lines: string[] = [];
  const errors: Error[] = [];
  const follower = new EventsFollower({
    path: file,
    onLine: (l) => lines.push(l),
    onError: (e) => errors.push(e),
    pollMs: 10_000,
  });
  follower.start();
  await follower.poll();
  fs.writeFileSync(file, 'one\ntwo\n');
  await follower.poll();
  fs.writeFileSync(file, 'x\n');
  await follower.poll();
  follower.stop();
  assert.deepEqual(lines, ['one', 'two', 'x']);
  assert.deepEqual(errors, []);
});

test('picks up appends by itself (watch or polling)', async () => {
  const file = tempFile();
  fs.writeFileSync(file, '');
  const lines: string[] = [];
  const follower = new EventsFollower({ path: file, onLine: (l) => lines.push(l), pollMs: 50 });
  follower.start();
  fs.appendFileSync(file, 'hello\n');
  const deadline = Date.now() + 3000;
  while (lines.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  follower.stop();
  assert.deepEqual(lines, ['hello']);
});
