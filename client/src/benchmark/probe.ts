// Asks the benchmark interpreter, before any run, whether it has PyTorch and which accelerator
// PyTorch sees, so the panel can size the run for the machine and offer an interpreter choice
// when torch is missing. Runs only `python -c PROBE` (no user code, no shell). No `vscode` import.
import { execFile } from 'node:child_process';

/** What the interpreter has: torch and its device, or why the probe failed. */
export type ProbeResult =
  | {
      status: 'ok';
      torch: string;
      /** "cuda", "rocm", "mps" or "cpu": what device "auto" resolves to. */
      backend: 'cuda' | 'rocm' | 'mps' | 'cpu';
      deviceName: string | null;
      gpuCount: number;
    }
  | { status: 'no-torch' | 'no-python' | 'error'; message: string };

/** Printed as one JSON line; torch.version.hip marks ROCm builds, which expose the GPU through torch.cuda. */
export const PROBE_SCRIPT = [
  'import json',
  'try:',
  '    import torch',
  'except ImportError as exc:',
  '    print(json.dumps({"status": "no-torch", "message": str(exc)}))',
  '    raise SystemExit(0)',
  'gpu = torch.cuda.is_available()',
  'hip = bool(getattr(torch.version, "hip", None))',
  'mps = getattr(torch.backends, "mps", None)',
  'mps = bool(mps is not None and mps.is_available())',
  'backend = ("rocm" if hip else "cuda") if gpu else ("mps" if mps else "cpu")',
  'name = torch.cuda.get_device_name(0) if gpu else None',
  'print(json.dumps({"status": "ok", "torch": str(torch.__version__), "backend": backend,',
  '                  "deviceName": name, "gpuCount": torch.cuda.device_count() if gpu else 0}))',
].join('\n');

/** Importing torch can take several seconds on a cold disk. */
export const PROBE_TIMEOUT_MS = 60_000;

function lastLine(text: string): string {
  return text.trim().split('\n').pop()?.trim() ?? '';
}

/** Parses the probe's stdout; anything unexpected is an `error` with the text it printed. */
export function parseProbeOutput(stdout: string): ProbeResult {
  const line = lastLine(stdout);
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (value.status === 'no-torch')
      return { status: 'no-torch', message: String(value.message ?? 'No module named torch') };
    if (
      value.status === 'ok' &&
      typeof value.torch === 'string' &&
      ['cuda', 'rocm', 'mps', 'cpu'].includes(String(value.backend)) &&
      typeof value.gpuCount === 'number'
    )
      return {
        status: 'ok',
        torch: value.torch,
        backend: value.backend as 'cuda' | 'rocm' | 'mps' | 'cpu',
        deviceName: typeof value.deviceName === 'string' ? value.deviceName : null,
        gpuCount: value.gpuCount,
      };
  } catch {
    // fall through: not JSON
  }
  return { status: 'error', message: `unexpected probe output: ${line.slice(0, 200) || '(nothing)'}` };
}

/** Runs the probe with `python` (a path or a command name found on PATH). */
export function probeInterpreter(python: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(
      python,
      ['-c', PROBE_SCRIPT],
      { timeout: timeoutMs, windowsHide: true },
      (error, stdout, stderr) => {
        if (error && (error as NodeJS.ErrnoException).code === 'ENOENT')
          return resolve({ status: 'no-python', message: `${python} was not found` });
        if (error && (error as NodeJS.ErrnoException).code === 'EACCES')
          return resolve({ status: 'no-python', message: `${python} is not executable` });
        if (error && !stdout.trim())
          return resolve({
            status: 'error',
            message: lastLine(stderr) || (error.killed ? 'timed out' : error.message).slice(0, 300),
          });
        resolve(parseProbeOutput(stdout));
      },
    );
  });
}

/** One line for the panel: what the run will use. */
export function describeProbe(python: string, probe: ProbeResult): string {
  if (probe.status === 'ok') {
    const device =
      probe.backend === 'cpu'
        ? 'no GPU visible, so benchmarks run on the CPU (a small sweep)'
        : `${probe.backend === 'rocm' ? 'ROCm' : probe.backend === 'cuda' ? 'CUDA' : 'MPS'} ${probe.deviceName ?? ''}`.trim();
    return `${python}: torch ${probe.torch}; ${device}.`;
  }
  if (probe.status === 'no-torch')
    return `PyTorch is not installed for ${python}. Choose an interpreter that has torch 1.13 or newer.`;
  if (probe.status === 'no-python')
    return `The Python interpreter ${python} was not found. Choose another interpreter.`;
  return `${python} could not be checked (${probe.message}). Choose another interpreter.`;
}
