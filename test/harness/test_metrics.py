"""Unit tests of the pure parts: timing statistics, roofline metrics, analytic FLOPs, spec defaults and
the JSON Schema checker the end-to-end tests rely on."""

import unittest

import support  # noqa: F401  (puts bench/ on sys.path)
import torch
from torch import nn
from shardlens_bench import flops as flop_counting
from shardlens_bench.peaks import find_peak
from shardlens_bench.roofline import derived_metrics
from shardlens_bench.schema_check import load_schema, validate
from shardlens_bench.spec import SpecError, check_spec
from shardlens_bench.timing import summarize


class TimingStatisticsTest(unittest.TestCase):
    def test_median_iqr_min_match_numpy_linear_quantiles(self):
        # numpy.percentile([4, 1, 3, 2], [25, 75]) == [1.75, 3.25]
        result = summarize([4.0, 1.0, 3.0, 2.0], "host clock")
        self.assertEqual((result.median_ms, result.iqr_ms, result.min_ms, result.repetitions), (2.5, 1.5, 1.0, 4))

    def test_single_sample_has_zero_iqr(self):
        self.assertEqual(summarize([3.0], "host clock").iqr_ms, 0.0)


class RooflineTest(unittest.TestCase):
    def test_h100_ridge_and_verdicts(self):
        peak = find_peak("NVIDIA H100 80GB HBM3", "bf16", "cuda")
        # 989e12 FLOP/s over 3.35e12 B/s: ridge at about 295 FLOP/byte.
        self.assertAlmostEqual(peak.ridge_flops_per_byte, 989 / 3.35, places=6)
        # bf16 Linear(4096, 4096) at 64 rows (FACTS.md: 22.0 us by do_bench).
        flops = 2 * 4096 * 4096 * 64
        moved = 2 * (4096 * 4096 + 4096 + 64 * 4096 * 2)
        metrics = derived_metrics(flops=flops, moved_bytes=moved, median_ms=0.022, peak=peak)
        self.assertAlmostEqual(metrics["achievedTflops"], flops / 22e-6 / 1e12)
        self.assertAlmostEqual(metrics["percentOfPeak"], metrics["achievedTflops"] / 989 * 100)
        self.assertAlmostEqual(metrics["achievedGBps"], moved / 22e-6 / 1e9)
        self.assertEqual(metrics["roofline"], "memory-bound")  # intensity about 60 FLOP/byte < 295
        big = derived_metrics(flops=2 * 8192**3, moved_bytes=3 * 2 * 8192**2, median_ms=1.4, peak=peak)
        self.assertEqual(big["roofline"], "compute-bound")

    def test_unknown_flops_leave_flop_metrics_null(self):
        metrics = derived_metrics(flops=None, moved_bytes=1000, median_ms=1.0, peak=find_peak("x", "fp32", "cpu"))
        self.assertEqual((metrics["achievedTflops"], metrics["arithmeticIntensity"], metrics["roofline"]),
                         (None, None, None))
        self.assertAlmostEqual(metrics["achievedGBps"], 1000 / 1e-3 / 1e9)


class AnalyticFlopsTest(unittest.TestCase):
    def test_conv_and_linear_formulas(self):
        model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 16 * 16, 10))
        x = torch.randn(2, 3, 16, 16)
        flops, unknown = flop_counting.analytic_forward_flops(model, lambda: model(x))
        conv = 2 * 8 * 3 * 3 * 3 * 16 * 16 * 2  # 2*Cout*Cin/groups*k*k*Hout*Wout*N
        linear = 2 * (8 * 16 * 16) * 10 * 2
        self.assertEqual((flops, unknown), (conv + linear, []))

    def test_grouped_conv_divides_input_channels(self):
        conv = nn.Conv1d(8, 8, 5, groups=4)
        x = torch.randn(1, 8, 20)
        flops, _ = flop_counting.analytic_forward_flops(conv, lambda: conv(x))
        self.assertEqual(flops, 2 * 8 * (8 // 4) * 5 * 16)

    def test_custom_module_is_unknown(self):
        class Custom(nn.Module):
            def forward(self, x):
                return x @ x

        _, unknown = flop_counting.analytic_forward_flops(Custom(), lambda: None)
        self.assertEqual(unknown, ["Custom"])


class SpecTest(unittest.TestCase):
    def test_defaults_are_filled_from_the_schema(self):
        spec = check_spec({"version": 1, "kind": "layer", "runId": "r", "constructor": "nn.Linear(2, 2)",
                           "inputs": [{"shape": [1, 2], "dtype": "long"}]})
        self.assertEqual((spec["dtype"], spec["device"], spec["modes"], spec["warmup"], spec["repetitions"]),
                         ("fp32", "auto", ["forward"], None, None))
        # Repetitions by time budget, as triton.testing.do_bench(warmup=25, rep=100).
        self.assertEqual((spec["warmupMs"], spec["measureMs"], spec["maxCaseSeconds"], spec["cudaGraph"]),
                         (25, 100, 10, True))
        self.assertEqual((spec["file"], spec["batchSizes"], spec["inputs"][0]["high"]), (None, None, 2))
        collectives = check_spec({"version": 1, "kind": "collectives", "runId": "c"})
        self.assertEqual(collectives["ops"], ["all_reduce", "all_gather", "reduce_scatter"])

    def test_unknown_dimension_name_is_rejected(self):
        with self.assertRaises(SpecError) as raised:
            check_spec({"version": 1, "kind": "layer", "runId": "r", "constructor": "m",
                        "inputs": [{"shape": ["B", "T"], "dtype": "float"}], "dims": {"B": 1}})
        self.assertIn("'T'", raised.exception.message)
        self.assertEqual(raised.exception.run_id, "r")

    def test_bad_device_string_is_rejected(self):
        with self.assertRaises(SpecError) as raised:
            check_spec({"version": 1, "kind": "layer", "runId": "r", "constructor": "m", "inputs": [],
                        "device": "cuda0; rm -rf /"})
        self.assertIn("$.device", raised.exception.message)


class SchemaCheckerTest(unittest.TestCase):
    schema = {
        "type": "object", "required": ["a"], "additionalProperties": False,
        "properties": {"a": {"type": "integer", "minimum": 1}, "b": {"enum": ["x", None]},
                       "c": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}}},
    }

    def test_reports_each_kind_of_violation(self):
        self.assertEqual(validate({"a": 1, "b": None, "c": ["ok"]}, self.schema), [])
        problems = validate({"a": True, "b": "y", "c": ["Bad"], "d": 1}, self.schema)
        self.assertEqual(len(problems), 4, problems)
        self.assertEqual(validate({}, self.schema), ["$: missing required field 'a'"])
        self.assertEqual(len(validate({"a": 0}, self.schema)), 1)

    def test_one_of_reports_the_closest_branch(self):
        events = load_schema("events")
        problems = validate({"type": "done", "runId": "r", "time": 1.0, "ok": True, "cases": -1, "errors": 0}, events)
        self.assertEqual(problems, ["$.cases: -1 is below the minimum 0"])

    def test_unsupported_keyword_raises(self):
        with self.assertRaises(ValueError):
            validate(1, {"multipleOf": 2})


if __name__ == "__main__":
    unittest.main()
