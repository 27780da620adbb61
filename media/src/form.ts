// The editable forms of the benchmark panel (layer and collectives): renders them from a
// form value and reads them back, reporting every field that does not parse.
import { h } from './dom';
import { COLLECTIVE_OPS, DTYPES, MODES } from '../../client/src/benchmark/events';
import type { CollectivesForm, LayerForm } from '../../client/src/benchmark/messages';

const DEVICES = [
  'auto',
  'cpu',
  'cuda:0',
  'cuda:1',
  'cuda:2',
  'cuda:3',
  'cuda:4',
  'cuda:5',
  'cuda:6',
  'cuda:7',
];
const MODE_LABELS: Record<string, string> = { forward: 'forward', forward_backward: 'forward + backward' };

function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  return h(
    'label',
    { class: 'field' },
    h('span', { class: 'label' }, label),
    control,
    hint ? h('span', { class: 'hint' }, hint) : null,
  );
}

function select(
  name: string,
  options: readonly string[],
  value: string,
  labels: Record<string, string> = {},
): HTMLSelectElement {
  const el = h('select', { name });
  for (const o of options) el.append(h('option', { value: o, selected: o === value }, labels[o] ?? o));
  return el;
}

function checkbox(name: string, value: string, checked: boolean, label: string): HTMLElement {
  return h('label', { class: 'check' }, h('input', { type: 'checkbox', name, value, checked }), label);
}

function listText(values: (number | string)[]): string {
  return values.join(', ');
}

function inputRow(input: LayerForm['inputs'][number]): HTMLElement {
  return h(
    'div',
    { class: 'input-row' },
    h('input', {
      type: 'text',
      name: 'shape',
      value: listText(input.shape),
      'aria-label': 'input shape',
      spellcheck: 'false',
    }),
    select('inputDtype', ['float', 'long'], input.dtype),
    h('input', {
      type: 'number',
      name: 'high',
      min: 1,
      value: input.high ?? '',
      placeholder: 'vocab',
      'aria-label': 'upper bound for long inputs',
    }),
    h(
      'button',
      { type: 'button', class: 'secondary small', 'data-action': 'remove-input', title: 'Remove this input' },
      '×',
    ),
  );
}

/** The layer form element. */
export function renderLayerForm(form: LayerForm): HTMLFormElement {
  const inputs = h('div', { class: 'inputs' }, ...form.inputs.map(inputRow));
  const el = h(
    'form',
    { class: 'bench-form', id: 'layer-form' },
    field(
      'Constructor',
      h(
        'textarea',
        { name: 'constructor', rows: 2, spellcheck: 'false', placeholder: 'e.g. Block(GPTConfig())' },
        form.constructorExpression,
      ),
      'A Python expression evaluated in the file’s namespace.',
    ),
    h(
      'div',
      { class: 'field' },
      h('span', { class: 'label' }, 'Inputs (shape, dtype)'),
      inputs,
      h('button', { type: 'button', class: 'secondary small', 'data-action': 'add-input' }, '+ input'),
    ),
    h(
      'div',
      { class: 'row' },
      field(
        'Dims',
        h('input', {
          type: 'text',
          name: 'dims',
          value: Object.entries(form.dims)
            .map(([k, v]) => `${k}=${v}`)
            .join(', '),
          spellcheck: 'false',
        }),
        'e.g. B=8, T=128',
      ),
      field(
        'Batch dim',
        h('input', {
          type: 'text',
          name: 'batchDim',
          value: form.batchDim ?? '',
          size: 4,
          spellcheck: 'false',
        }),
      ),
      field(
        'Batch sizes',
        h('input', {
          type: 'text',
          name: 'batchSizes',
          value: listText(form.batchSizes),
          spellcheck: 'false',
        }),
        'sweep',
      ),
    ),
    h(
      'div',
      { class: 'row' },
      field('dtype', select('dtype', DTYPES, form.dtype)),
      field('Device', select('device', DEVICES, form.device)),
      field(
        'Warm-up ms',
        h('input', { type: 'number', name: 'warmupMs', min: 0, step: 'any', value: form.warmupMs }),
      ),
      field(
        'Measure ms',
        h('input', { type: 'number', name: 'measureMs', min: 1, step: 'any', value: form.measureMs }),
        'per case, as do_bench',
      ),
      field(
        'Cap per case s',
        h('input', {
          type: 'number',
          name: 'maxCaseSeconds',
          min: 1,
          step: 'any',
          value: form.maxCaseSeconds,
        }),
      ),
    ),
    h(
      'div',
      { class: 'row checks' },
      ...MODES.map((m) => checkbox('modes', m, form.modes.includes(m), MODE_LABELS[m])),
      checkbox('compile', 'on', form.compile, 'torch.compile'),
    ),
  );
  el.addEventListener('click', (e) => {
    const target = e.target as HTMLElement;
    const action = target.getAttribute('data-action');
    if (action === 'add-input') inputs.append(inputRow({ shape: ['B'], dtype: 'float' }));
    if (action === 'remove-input') target.closest('.input-row')?.remove();
  });
  return el;
}

function parseIntList(text: string, what: string, errors: string[]): number[] {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  const values = parts.map(Number);
  if (values.some((v) => !Number.isInteger(v) || v <= 0))
    errors.push(`${what}: whole numbers above zero, separated by commas.`);
  return values.filter((v) => Number.isInteger(v) && v > 0);
}

function numberOf(form: HTMLFormElement, name: string): number {
  return Number((form.elements.namedItem(name) as HTMLInputElement).value);
}

function valueOf(form: HTMLFormElement, name: string): string {
  return (form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement).value;
}

function checkedValues(form: HTMLFormElement, name: string): string[] {
  return Array.from(form.querySelectorAll<HTMLInputElement>(`input[name="${name}"]`))
    .filter((i) => i.checked)
    .map((i) => i.value);
}

/** Reads the layer form; returns the problems when a field does not parse. */
export function readLayerForm(el: HTMLFormElement): { form?: LayerForm; errors: string[] } {
  const errors: string[] = [];
  const inputs: LayerForm['inputs'] = [];
  el.querySelectorAll('.input-row').forEach((row, i) => {
    const shapeText = (row.querySelector('input[name="shape"]') as HTMLInputElement).value;
    const shape = shapeText
      .split(/[\s,×x*]+/)
      .filter(Boolean)
      .map((d) => (/^\d+$/.test(d) ? Number(d) : d));
    if (
      shape.some((d) => typeof d === 'string' && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(d)) ||
      shape.some((d) => d === 0)
    )
      errors.push(`Input ${i + 1}: dims are positive numbers or names such as B and T.`);
    const dtype =
      (row.querySelector('select[name="inputDtype"]') as HTMLSelectElement).value === 'long'
        ? 'long'
        : 'float';
    const highText = (row.querySelector('input[name="high"]') as HTMLInputElement).value.trim();
    const high = highText === '' ? undefined : Number(highText);
    if (high !== undefined && !(Number.isInteger(high) && high > 0))
      errors.push(`Input ${i + 1}: the upper bound must be a positive whole number.`);
    inputs.push({ shape, dtype, ...(high ? { high } : {}) });
  });
  const dims: Record<string, number> = {};
  for (const part of valueOf(el, 'dims')
    .split(/[\s,]+/)
    .filter(Boolean)) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(\d+)$/.exec(part);
    if (m && Number(m[2]) > 0) dims[m[1]] = Number(m[2]);
    else errors.push(`Dims: "${part}" is not NAME=NUMBER.`);
  }
  const batchDim = valueOf(el, 'batchDim').trim();
  const warmupMs = numberOf(el, 'warmupMs');
  const measureMs = numberOf(el, 'measureMs');
  const maxCaseSeconds = numberOf(el, 'maxCaseSeconds');
  if (!Number.isFinite(warmupMs) || warmupMs < 0) errors.push('Warm-up: milliseconds, 0 or more.');
  if (!Number.isFinite(measureMs) || measureMs <= 0) errors.push('Measure: milliseconds above zero.');
  if (!Number.isFinite(maxCaseSeconds) || maxCaseSeconds <= 0)
    errors.push('Cap per case: seconds above zero.');
  const form: LayerForm = {
    constructorExpression: valueOf(el, 'constructor'),
    inputs,
    dims,
    batchDim: batchDim === '' ? null : batchDim,
    batchSizes: parseIntList(valueOf(el, 'batchSizes'), 'Batch sizes', errors),
    dtype: valueOf(el, 'dtype') as LayerForm['dtype'],
    modes: checkedValues(el, 'modes') as LayerForm['modes'],
    compile: checkedValues(el, 'compile').length > 0,
    device: valueOf(el, 'device'),
    warmupMs,
    measureMs,
    maxCaseSeconds,
  };
  return errors.length > 0 ? { errors } : { form, errors };
}

/** The collectives form element. */
export function renderCollectivesForm(form: CollectivesForm): HTMLFormElement {
  return h(
    'form',
    { class: 'bench-form', id: 'collectives-form' },
    h(
      'div',
      { class: 'row' },
      field(
        'Processes',
        h('input', { type: 'number', name: 'worldSize', min: 1, max: 64, value: form.worldSize }),
        'one per GPU; 1 checks the NCCL path (busbw is 0 by definition)',
      ),
      field('Backend', select('backend', ['auto', 'gloo', 'nccl'], form.backend)),
      field('Device', select('collDevice', ['auto', 'cpu'], form.device)),
      field('Warmup', h('input', { type: 'number', name: 'collWarmup', min: 0, value: form.warmup })),
      field(
        'Repetitions',
        h('input', { type: 'number', name: 'collRepetitions', min: 1, value: form.repetitions }),
      ),
    ),
    field(
      'Sizes (bytes)',
      h('input', { type: 'text', name: 'sizesBytes', value: listText(form.sizesBytes), spellcheck: 'false' }),
    ),
    h(
      'div',
      { class: 'row checks' },
      ...COLLECTIVE_OPS.map((op) => checkbox('ops', op, form.ops.includes(op), op)),
    ),
  );
}

/** Reads the collectives form. */
export function readCollectivesForm(el: HTMLFormElement): { form?: CollectivesForm; errors: string[] } {
  const errors: string[] = [];
  const worldSize = numberOf(el, 'worldSize');
  if (!Number.isInteger(worldSize) || worldSize < 1) errors.push('Processes: a whole number, 1 or more.');
  const form: CollectivesForm = {
    worldSize,
    ops: checkedValues(el, 'ops') as CollectivesForm['ops'],
    sizesBytes: parseIntList(valueOf(el, 'sizesBytes'), 'Sizes', errors),
    backend: valueOf(el, 'backend') as CollectivesForm['backend'],
    device: valueOf(el, 'collDevice') as CollectivesForm['device'],
    warmup: numberOf(el, 'collWarmup'),
    repetitions: numberOf(el, 'collRepetitions'),
  };
  return errors.length > 0 ? { errors } : { form, errors };
}
