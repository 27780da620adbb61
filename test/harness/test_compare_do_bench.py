"""bench/compare_do_bench.py without a GPU: the case list, a clean refusal with nothing written, the layers it
defines (checked against torchvision and causality), and the report's regime and agreement logic on synthetic
numbers shaped like the issue's H100 reference."""

import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import torch

from support import BENCH_DIR
from shardlens_bench.compare_report import agreement_problems, build_report, case_row, gpu_slug

SCRIPT = BENCH_DIR / "compare_do_bench.py"
sys.path.insert(0, str(BENCH_DIR))
import compare_do_bench  # noqa: E402

H100_BF16_RIDGE = 989 / 3.35  # FLOP/byte: presets.json H100 SXM, dense bf16 over HBM bandwidth


def event(median_ms, graph_ms=None, intensity=None, peak=None):
    """The fields of a harness `case` event that the report reads."""
    return {"timing": {"medianMs": median_ms},
            "graphTiming": None if graph_ms is None else {"medianMs": graph_ms},
            "arithmeticIntensity": intensity, "peakMemoryBytes": peak}


class ScriptWithoutGpuTest(unittest.TestCase):
    def run_script(self, *args):
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="", HIP_VISIBLE_DEVICES="")
        return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env,
                              timeout=120)

    def test_dry_run_lists_the_issue_cases(self):
        done = self.run_script("--dry-run")
        self.assertEqual(done.returncode, 0, done.stderr)
        names = [line.split(":")[0] for line in done.stdout.splitlines()]
        self.assertEqual(names, ["linear-4096-64", "linear-4096-8192", "layernorm-4096-8192", "gpt2-block-768-t1024-b8",
                                 "resnet-bottleneck-256-56x56-b32", "conv2d-64-3x3-56x56-b32", "sdpa-b8-h12-t1024-d64"])
        self.assertTrue(all("bf16/fp32 x forward/forward_backward" in line for line in done.stdout.splitlines()))

    def test_no_gpu_writes_nothing_and_says_why(self):
        with tempfile.TemporaryDirectory() as out:
            done = self.run_script("--out", out)
            self.assertEqual(done.returncode, 2)
            self.assertIn("needs a CUDA or ROCm GPU", done.stderr)
            self.assertEqual(os.listdir(out), [])

    def test_unknown_case_is_refused(self):
        done = self.run_script("--only", "linear-9")
        self.assertEqual(done.returncode, 2)
        self.assertIn("unknown case", done.stderr)


class CaseLayersTest(unittest.TestCase):
    def test_bottleneck_matches_torchvision_parameter_count(self):
        try:
            from torchvision.models.resnet import Bottleneck as TorchvisionBottleneck
        except ImportError:
            self.skipTest("torchvision is not installed")
        ours = sum(p.numel() for p in compare_do_bench.Bottleneck(256, 64).parameters())
        theirs = sum(p.numel() for p in TorchvisionBottleneck(256, 64).parameters())
        self.assertEqual(ours, theirs)
        x = torch.randn(1, 256, 7, 7)
        self.assertEqual(compare_do_bench.Bottleneck(256, 64)(x).shape, x.shape)

    def test_gpt_block_is_causal_and_keeps_the_shape(self):
        torch.manual_seed(0)
        block = compare_do_bench.GptBlock(32, 4).eval()
        x = torch.randn(2, 8, 32)
        changed = x.clone()
        changed[:, 5:] += 1.0  # only later positions change
        with torch.no_grad():
            before, after = block(x), block(changed)
        self.assertEqual(before.shape, x.shape)
        self.assertTrue(torch.allclose(before[:, :5], after[:, :5], atol=1e-6))
        self.assertFalse(torch.allclose(before[:, 5:], after[:, 5:]))
        params = sum(p.numel() for p in block.parameters())
        self.assertEqual(params, 12 * 32 * 32 + 13 * 32)  # GPT-2 block: 12 h^2 weights, 13 h biases and norms


class PlumbingOnCpuTest(unittest.TestCase):
    """The GPU run's plumbing (harness events by mode, the do_bench step) on a small CPU case."""

    def test_harness_events_and_step_for_a_small_case(self):
        case = compare_do_bench.Case("linear-8", "nn.Linear(8, 8)", [[4, 8]])
        events = compare_do_bench.harness_events(case, "fp32", device="cpu")
        self.assertEqual(sorted(events), ["forward", "forward_backward"])
        self.assertGreater(events["forward"]["timing"]["medianMs"], 0)
        step, reset = compare_do_bench.step_for(case, "fp32", "forward_backward", device="cpu")
        step()
        self.assertEqual(len(reset), 3)  # weight, bias, input
        self.assertTrue(all(t.grad is not None for t in reset))


class ReportTest(unittest.TestCase):
    def rows(self):
        return [
            case_row(layer="linear-4096-8192", dtype="bf16", mode="forward_backward", do_bench_ms=1.32,
                     cudagraph_ms=1.31, ridge=H100_BF16_RIDGE, harness_event=event(1.33, 1.31, 1365.0, 10**8)),
            case_row(layer="layernorm-4096-8192", dtype="bf16", mode="forward_backward", do_bench_ms=0.52,
                     cudagraph_ms=0.16, ridge=H100_BF16_RIDGE, harness_event=event(0.50, 0.17, 1.5)),
            case_row(layer="linear-4096-64", dtype="bf16", mode="forward", do_bench_ms=0.022, cudagraph_ms=None,
                     ridge=H100_BF16_RIDGE, harness_event=event(0.020, 0.019, 60.0),
                     notes=["do_bench_cudagraph failed: RuntimeError: x"]),
        ]

    def test_regimes_from_graph_ratio_then_roofline(self):
        compute, launch, memory = self.rows()
        self.assertEqual(compute["regime"], "compute-bound")
        self.assertEqual(launch["regime"], "launch-bound")  # 0.50 / 0.16 = 3.1x
        # No do_bench_cudagraph: the harness's own replay (0.019 ms) stands in, 1.05x is not launch-bound.
        self.assertEqual((memory["regime"], memory["harnessGraphMedianMs"]), ("memory-bound", 0.019))

    def test_agreement_flags_only_compute_bound_rows_outside_five_percent(self):
        rows = self.rows()
        self.assertEqual(agreement_problems(rows), [])
        off = case_row(layer="linear-4096-8192", dtype="fp32", mode="forward", do_bench_ms=10.0, cudagraph_ms=10.0,
                       ridge=67 / 3.35, harness_event=event(10.8, 10.0, 900.0))
        problems = agreement_problems(rows + [off])
        self.assertEqual(len(problems), 1)
        self.assertIn("+8.0%", problems[0])

    def test_report_matches_its_schema_and_rejects_bad_rows(self):
        report = build_report(device="NVIDIA H100 80GB HBM3", torch_version="2.11.0", triton_version="3.5.0",
                              rows=self.rows())
        self.assertEqual(json.loads(json.dumps(report))["cases"][1]["regime"], "launch-bound")
        self.assertEqual(gpu_slug(report["device"]), "nvidia-h100-80gb-hbm3")
        bad = dict(self.rows()[0], dtype="fp64")
        with self.assertRaises(ValueError):
            build_report(device="x", torch_version="2", triton_version=None, rows=[bad])


if __name__ == "__main__":
    unittest.main()


class TurnsTest(unittest.TestCase):
    def test_middle_run_takes_the_median_run_and_the_last_graph_timing(self):
        runs = [event(0.30), event(0.10), {**event(0.20, graph_ms=0.05)}]
        middle = compare_do_bench.middle_run(runs)
        self.assertEqual(middle["timing"]["medianMs"], 0.20)
        runs = [event(0.20), event(0.30), event(0.10, graph_ms=0.05)]
        middle = compare_do_bench.middle_run(runs)
        self.assertEqual(middle["timing"]["medianMs"], 0.20)
        self.assertEqual(middle["graphTiming"]["medianMs"], 0.05)
        self.assertIsNone(runs[0]["graphTiming"], "the runs themselves are not changed")


class CommittedResultsTest(unittest.TestCase):
    """bench/results/*.json come from real GPU runs (docs/benchmark.md): each must keep to the schema, cover
    every case, and give every row a regime, with graph replay wherever the row is launch-bound."""

    def test_each_results_file_keeps_to_the_schema_and_covers_every_case(self):
        from shardlens_bench.schema_check import validate

        files = sorted((BENCH_DIR / "results").glob("*.json"))
        self.assertTrue(files, "no results file is committed")
        schema = json.loads((BENCH_DIR / "shardlens_bench" / "schema" / "compare.schema.json").read_text())
        for path in files:
            report = json.loads(path.read_text())
            self.assertEqual(validate(report, schema), [], path.name)
            self.assertEqual(path.stem, gpu_slug(report["device"]))
            expected = {(c.name, d, m) for c in compare_do_bench.CASES for d in ("bf16", "fp32")
                        for m in ("forward", "forward_backward")}
            self.assertEqual({(c["layer"], c["dtype"], c["mode"]) for c in report["cases"]}, expected, path.name)
            for row in report["cases"]:
                self.assertIn(row["regime"], ("compute-bound", "memory-bound", "launch-bound"))
                if row["regime"] == "launch-bound":
                    self.assertIsNotNone(row["cudagraphMedianMs"] or row["harnessGraphMedianMs"], row["layer"])
