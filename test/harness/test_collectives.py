"""Collectives benchmark: gloo over 2 spawned processes end to end, and the nccl-tests bandwidth formulas."""

import unittest

import torch.distributed as dist

from support import run_harness, schema_problems
from shardlens_bench.collectives import bandwidths_gbps, bus_bandwidth_factor, element_count


class BandwidthFormulaTest(unittest.TestCase):
    def test_bus_bandwidth_factors_match_nccl_tests(self):
        # nccl-tests doc/PERFORMANCE.md: AllReduce 2(n-1)/n, AllGather and ReduceScatter (n-1)/n.
        self.assertEqual(bus_bandwidth_factor("all_reduce", 8), 1.75)
        self.assertEqual(bus_bandwidth_factor("all_gather", 8), 0.875)
        self.assertEqual(bus_bandwidth_factor("reduce_scatter", 8), 0.875)
        self.assertEqual(bus_bandwidth_factor("all_reduce", 2), 1.0)

    def test_algbw_is_size_over_time_in_decimal_gigabytes(self):
        # A published nccl-tests row: 134217728 B in 1211.2 us prints algbw 110.81 GB/s.
        result = bandwidths_gbps("all_reduce", 134217728, 1.2112, 8)
        self.assertAlmostEqual(result["algbwGBps"], 110.81, places=2)
        self.assertAlmostEqual(result["busbwGBps"], 110.81 * 1.75, delta=0.01)

    def test_element_count_is_divisible_by_world_size(self):
        self.assertEqual(element_count(1024, 2), 256)
        self.assertEqual(element_count(1000, 3), 249)
        self.assertEqual(element_count(1, 4), 4)


class GlooSweepTest(unittest.TestCase):
    def test_two_process_gloo_sweep(self):
        sizes = [1024, 65536]
        spec = {"version": 1, "kind": "collectives", "runId": "coll", "worldSize": 2,
                "ops": ["all_reduce", "all_gather", "reduce_scatter"], "sizesBytes": sizes,
                "backend": "gloo", "device": "cpu", "warmup": 1, "repetitions": 3}
        run = run_harness(spec)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(schema_problems(run.events), [])
        started, done = run.events[0], run.events[-1]
        self.assertEqual((started["type"], started["collectiveBackend"], started["totalCases"]), ("started", "gloo", 6))
        results = run.of_type("collective")
        by_op = {}
        for event in results:
            by_op.setdefault(event["op"], []).append(event)
            self.assertEqual(event["worldSize"], 2)
            self.assertAlmostEqual(event["algbwGBps"], event["sizeBytes"] / (event["timeMs"] / 1e3) / 1e9)
            self.assertAlmostEqual(event["busbwGBps"], event["algbwGBps"] * event["busbwFactor"])
        self.assertEqual([e["sizeBytes"] for e in by_op["all_reduce"]], sizes)
        self.assertEqual([e["sizeBytes"] for e in by_op["all_gather"]], sizes)
        self.assertEqual({e["busbwFactor"] for e in by_op["all_reduce"]}, {1.0})  # 2(n-1)/n at n = 2
        self.assertEqual({e["busbwFactor"] for e in by_op["all_gather"]}, {0.5})  # (n-1)/n at n = 2
        errors = run.of_type("error")
        if "reduce_scatter" in by_op:  # newer gloo builds implement it
            self.assertEqual({e["busbwFactor"] for e in by_op["reduce_scatter"]}, {0.5})
        else:  # gloo in PyTorch 1.13 has no reduce_scatter
            self.assertEqual([(e["kind"], e["op"], e["recoverable"]) for e in errors],
                             [("unsupported", "reduce_scatter", True)])
        self.assertEqual((done["type"], done["ok"], done["cases"], done["errors"]),
                         ("done", True, len(results), len(errors)))

    def test_one_rank_has_zero_bus_bandwidth_as_nccl_tests_defines_it(self):
        # The one-GPU NCCL check runs this same path with worldSize 1: 2(n-1)/n and (n-1)/n are 0 at n = 1.
        spec = {"version": 1, "kind": "collectives", "runId": "one", "worldSize": 1, "ops": ["all_reduce", "all_gather"],
                "sizesBytes": [4096], "backend": "gloo", "device": "cpu", "warmup": 1, "repetitions": 3}
        run = run_harness(spec)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(schema_problems(run.events), [])
        results = run.of_type("collective")
        self.assertEqual([e["op"] for e in results], ["all_reduce", "all_gather"])
        for event in results:
            self.assertEqual((event["worldSize"], event["busbwFactor"], event["busbwGBps"]), (1, 0.0, 0.0))
            self.assertAlmostEqual(event["algbwGBps"], 4096 / (event["timeMs"] / 1e3) / 1e9)

    @unittest.skipUnless(dist.is_available(), "torch.distributed is not built in")
    def test_nccl_without_gpu_is_no_gpu(self):
        spec = {"version": 1, "kind": "collectives", "runId": "nccl", "backend": "nccl", "device": "auto"}
        run = run_harness(spec, extra_env={"CUDA_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": ""})
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(schema_problems(run.events), [])
        self.assertEqual([(e["type"], e.get("kind")) for e in run.events], [("error", "no_gpu"), ("done", None)])


if __name__ == "__main__":
    unittest.main()
