"""Repetitions by time budget: the do_bench-style counts, their bounds and the per-case cap (pure planning),
then real CPU calls of known duration timed through measure()."""

import time
import unittest

import support  # noqa: F401  (puts bench/ on sys.path)
from shardlens_bench.budget import Budget, estimate_call_ms, measure, plan_counts
from shardlens_bench.regime import LAUNCH_BOUND_RATIO, classify_regime

from support import layer_spec, run_harness, schema_problems


class PlanCountsTest(unittest.TestCase):
    def test_fast_call_gets_do_bench_counts(self):
        # do_bench: n_repeat = rep / estimate = 100 ms / 0.1 ms; warm-up fills what is left of 25 ms.
        plan = plan_counts(Budget(), estimate_ms=0.1, spent_ms=1.0)
        self.assertEqual((plan.warmup, plan.repetitions, plan.capped), (240, 1000, False))
        plan = plan_counts(Budget(), estimate_ms=0.5, spent_ms=0.0)
        self.assertEqual((plan.warmup, plan.repetitions), (50, 200))

    def test_counts_are_clamped_to_the_minimum_and_maximum(self):
        self.assertEqual(plan_counts(Budget(), estimate_ms=0.001, spent_ms=0.0).repetitions, 1000)
        plan = plan_counts(Budget(), estimate_ms=80.0, spent_ms=80.0)
        self.assertEqual((plan.warmup, plan.repetitions, plan.capped), (0, 5, False))

    def test_cap_wins_over_the_minimum_but_one_call_is_always_timed(self):
        # The CPU figure: a GPT-2 MLP at batch 1 x 1024 tokens took about 5 s per call.
        plan = plan_counts(Budget(max_case_seconds=10), estimate_ms=5000.0, spent_ms=5000.0)
        self.assertEqual((plan.warmup, plan.repetitions, plan.capped), (0, 1, True))
        plan = plan_counts(Budget(max_case_seconds=10), estimate_ms=2500.0, spent_ms=2500.0)
        self.assertEqual((plan.warmup, plan.repetitions, plan.capped), (0, 3, True))
        plan = plan_counts(Budget(max_case_seconds=1), estimate_ms=30.0, spent_ms=30.0)
        self.assertEqual((plan.repetitions, plan.capped), (5, False))

    def test_fixed_counts_win(self):
        plan = plan_counts(Budget(fixed_warmup=2, fixed_repetitions=7), estimate_ms=5000.0, spent_ms=0.0)
        self.assertEqual((plan.warmup, plan.repetitions, plan.capped), (2, 7, False))


class MeasureOnCpuTest(unittest.TestCase):
    def test_slow_call_stops_at_the_cap(self):
        calls = []

        def slow():
            calls.append(1)
            time.sleep(0.05)

        began = time.perf_counter()
        samples, plan = measure(slow, backend="cpu", budget=Budget(max_case_seconds=0.3))
        elapsed = time.perf_counter() - began
        self.assertTrue(plan.capped)
        self.assertEqual(len(samples), plan.repetitions)
        self.assertEqual(len(calls), plan.warmup + plan.repetitions)
        self.assertLess(elapsed, 0.3 + 0.15)  # the cap, plus at most the last call's overshoot
        self.assertTrue(all(s >= 50 for s in samples))

    def test_estimate_uses_one_call_when_it_exceeds_the_warmup_budget(self):
        estimate, calls = estimate_call_ms(lambda: time.sleep(0.03), backend="cpu", before_each=None, warmup_ms=25)
        self.assertEqual(calls, 1)
        self.assertGreaterEqual(estimate, 30)

    def test_fast_call_is_repeated_until_the_measure_budget(self):
        samples, plan = measure(lambda: time.sleep(0.002), backend="cpu", budget=Budget(measure_ms=40))
        self.assertFalse(plan.capped)
        # 40 ms at >= 2 ms per call: at most 20 timed calls, and the minimum of 5 at least.
        self.assertGreaterEqual(len(samples), 5)
        self.assertLessEqual(len(samples), 20)


class CompileSettleTest(unittest.TestCase):
    def test_first_call_is_timed_apart_and_calls_stop_once_nothing_compiles(self):
        from shardlens_bench.graphs import STEADY_CALLS, compiled_graph_count, settle_compiled

        calls = []

        def step():
            calls.append(1)
            time.sleep(0.03 if len(calls) == 1 else 0.001)  # the first call stands in for compilation

        warm = settle_compiled(step, backend="cpu", before_each=None)
        self.assertGreaterEqual(warm.first_call_ms, 30)
        if compiled_graph_count() is None:  # PyTorch 1.13: no TorchDynamo, so no counter to watch
            self.assertEqual((warm.recompiles, warm.steady_after_calls), (0, 1 + STEADY_CALLS))
        self.assertEqual(len(calls), warm.steady_after_calls)
        self.assertEqual(warm.to_event()["steadyAfterCalls"], len(calls))


class BudgetedHarnessRunTest(unittest.TestCase):
    def test_default_spec_times_by_budget_and_reports_counts(self):
        run = run_harness(layer_spec(warmup=None, repetitions=None, measureMs=20, batchSizes=[1, 2]))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(schema_problems(run.events), [])
        cases = run.of_type("case")
        self.assertEqual(len(cases), 2)
        for event in cases:
            timing = event["timing"]
            self.assertGreaterEqual(timing["repetitions"], 5)
            self.assertGreaterEqual(timing["warmup"], 1)
            self.assertIsNone(event["graphTiming"])
            self.assertIn("CUDA/ROCm", event["graphNote"])
            self.assertIsNone(event["regime"])
            self.assertIn("No regime", event["regimeNote"])
        progress = run.of_type("progress")
        self.assertIn("secondsLeft", progress[1])  # from the second case on, an estimate of the rest


class RegimeTest(unittest.TestCase):
    # Synthetic numbers shaped like the H100 reference (do_bench vs do_bench_cudagraph).
    def test_launch_bound_when_eager_is_well_above_graph_replay(self):
        regime, note = classify_regime(eager_ms=0.52, graph_ms=0.16, intensity=2.0, ridge=295.0)
        self.assertEqual(regime, "launch-bound")
        self.assertIn("3.2x", note)

    def test_roofline_decides_when_graph_replay_is_close(self):
        ridge = 989 / 3.35
        regime, _ = classify_regime(eager_ms=1.32, graph_ms=1.31, intensity=1000.0, ridge=ridge)
        self.assertEqual(regime, "compute-bound")
        regime, note = classify_regime(eager_ms=1.0, graph_ms=1.0 / LAUNCH_BOUND_RATIO, intensity=60.0, ridge=ridge)
        self.assertEqual(regime, "memory-bound")  # exactly 1.3x is not above the threshold
        self.assertIn("295", note)

    def test_no_regime_without_peaks_or_flops(self):
        self.assertEqual(classify_regime(eager_ms=1, graph_ms=None, intensity=5.0, ridge=None)[0], None)
        regime, note = classify_regime(eager_ms=1, graph_ms=None, intensity=None, ridge=295.0)
        self.assertIsNone(regime)
        self.assertIn("FLOPs", note)


if __name__ == "__main__":
    unittest.main()
