// The cluster picker's decisions: Enter keeps the row marked "(current)", ids are in the
// searchable description, an unknown current value keeps its own row, and a walk that
// changes nothing writes nothing (the e2e scenario checks the same on screen).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changedSettings, pickerRows } from '../../client/src/cluster-choices';
import { listGpus, listLinks } from '../../server/src/estimate';

test('the current row is the active one, marked, with its id searchable', () => {
  const gpus = listGpus();
  const { rows, activeIndex } = pickerRows(gpus, 'a100-40gb');
  assert.ok(activeIndex > 0, 'a100-40gb is not the first preset, so Enter must not mean row 0');
  assert.equal(rows[activeIndex].id, 'a100-40gb');
  assert.match(rows[activeIndex].description, /^a100-40gb · \(current\)$/);
  assert.equal(rows.filter((r) => r.description.includes('(current)')).length, 1);
  for (const row of rows) assert.ok(row.description.startsWith(row.id), row.description);
});

test('walking the inter-node links keeps IB NDR when it is current', () => {
  const links = listLinks('inter');
  const { rows, activeIndex } = pickerRows(links, 'ib-ndr');
  assert.equal(rows[activeIndex].id, 'ib-ndr');
  assert.notEqual(rows[0].id, 'ib-ndr', 'the first row differs, as in the reported bug');
});

test('a current value that is not a preset keeps a row of its own', () => {
  const { rows, activeIndex } = pickerRows(listGpus(), 'my-lab-gpu');
  assert.equal(activeIndex, 0);
  assert.equal(rows[0].id, 'my-lab-gpu');
  assert.match(rows[0].description, /not a known preset/);
});

test('only changed settings are written', () => {
  const before = {
    gpu: 'h100-sxm',
    gpusPerNode: 8,
    nodes: 2,
    intraNodeLink: 'nvlink4',
    interNodeLink: 'ib-ndr',
  };
  assert.deepEqual(changedSettings(before, { ...before }), []);
  assert.deepEqual(changedSettings(before, { ...before, gpu: 'a100-40gb', nodes: 4 }), [
    ['gpu', 'a100-40gb'],
    ['nodes', 4],
  ]);
});
