"""End-to-end layer benchmarks: the harness runs as a subprocess on CPU and every event is schema-checked."""

import unittest

import torch

from support import FIXTURES_DIR, layer_spec, run_harness, schema_problems


class LayerRunTestCase(unittest.TestCase):
    def assert_well_formed(self, run, ok):
        """Schema-valid events, `started` first (when present), exactly one `done` last, one stdout line each."""
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(schema_problems(run.events), [])
        self.assertEqual([e["type"] for e in run.events].count("done"), 1)
        done = run.events[-1]
        self.assertEqual(done["type"], "done")
        self.assertEqual(done["ok"], ok, run.events)
        self.assertEqual(done["cases"], len(run.of_type("case")))
        self.assertEqual(done["errors"], len(run.of_type("error")))
        printed = [line for line in run.stdout.splitlines() if line.startswith("[")]
        self.assertEqual(len(printed), len(run.events), run.stdout)
        return done


class LinearTest(LayerRunTestCase):
    def test_linear_forward_and_backward_over_batch_sizes(self):
        in_features, out_features, steps = 64, 32, 3
        run = run_harness(layer_spec(
            constructor=f"nn.Linear({in_features}, {out_features})",
            inputs=[{"shape": ["B", "T", in_features], "dtype": "float"}], dims={"T": steps},
            batchSizes=[1, 4], modes=["forward", "forward_backward"], repetitions=5,
        ))
        self.assert_well_formed(run, ok=True)
        started = run.events[0]
        self.assertEqual(started["type"], "started")
        self.assertEqual((started["backend"], started["collectiveBackend"]), ("cpu", "gloo"))
        self.assertEqual(started["versions"]["torch"], str(torch.__version__))
        self.assertEqual(started["totalCases"], 4)
        cases = {(e["case"]["batchSize"], e["case"]["mode"]): e for e in run.of_type("case")}
        self.assertEqual(sorted(cases), [(1, "forward"), (1, "forward_backward"), (4, "forward"), (4, "forward_backward")])
        params = in_features * out_features + out_features
        for (batch, mode), event in cases.items():
            rows = batch * steps
            forward_flops = 2 * in_features * out_features * rows
            self.assertEqual(event["flops"]["value"], forward_flops * (3 if mode == "forward_backward" else 1))
            self.assertIn(event["flops"]["source"], ("analytic", "flop_counter"))
            self.assertEqual(event["params"], params)
            timing = event["timing"]
            self.assertEqual((timing["method"], timing["repetitions"]), ("host clock", 5))
            self.assertLessEqual(timing["minMs"], timing["medianMs"])
            self.assertIsNone(event["peakMemoryBytes"])
            self.assertIn("CUDA", event["peakMemoryNote"])
            forward_bytes = 4 * (params + rows * in_features + rows * out_features)
            self.assertEqual(event["bytesMoved"], forward_bytes * (3 if mode == "forward_backward" else 1))
            seconds = timing["medianMs"] / 1e3
            self.assertAlmostEqual(event["achievedTflops"], event["flops"]["value"] / seconds / 1e12, places=9)
            self.assertAlmostEqual(event["arithmeticIntensity"], event["flops"]["value"] / event["bytesMoved"])
            # CPU has no peak table entry, so the roofline verdict is unknown.
            self.assertIsNone(event["percentOfPeak"])
            self.assertIsNone(event["roofline"])

    def test_progress_counts_reach_total(self):
        run = run_harness(layer_spec(batchSizes=[1, 2]))
        self.assert_well_formed(run, ok=True)
        progress = run.of_type("progress")
        self.assertEqual(progress[-1]["done"], progress[-1]["total"])
        self.assertEqual(progress[-1]["total"], 2)


class UserModuleTest(LayerRunTestCase):
    def test_gpt_block_from_fixture_file_with_config_dataclass(self):
        run = run_harness(layer_spec(
            file=str(FIXTURES_DIR / "gpt_block.py"), constructor="Block(GPTConfig(n_embd=32, n_head=4))",
            inputs=[{"shape": ["B", "T", 32], "dtype": "float"}], dims={"B": 2, "T": 16}, batchSizes=None,
            modes=["forward", "forward_backward"],
        ))
        self.assert_well_formed(run, ok=True)
        cases = run.of_type("case")
        self.assertEqual([(e["case"]["batchSize"], e["case"]["mode"]) for e in cases],
                         [(2, "forward"), (2, "forward_backward")])
        embd = 32
        expected_params = (2 * 2 * embd) + (embd * 3 * embd + 3 * embd) + (embd * embd + embd) \
            + (embd * 4 * embd + 4 * embd) + (4 * embd * embd + embd)
        self.assertEqual(cases[0]["params"], expected_params)
        flops = cases[0]["flops"]
        if flops["source"] is None:  # PyTorch < 2.1: the custom forward's matmuls cannot be counted
            self.assertIsNone(flops["value"])
            self.assertIn("Block", flops["note"])
        else:
            self.assertEqual(flops["source"], "flop_counter")
            self.assertGreater(flops["value"], 0)

    def test_long_inputs_use_randint_below_high(self):
        run = run_harness(layer_spec(
            constructor="nn.Embedding(10, 8)", inputs=[{"shape": ["B", 5], "dtype": "long", "high": 10}],
            batchSizes=[3], modes=["forward", "forward_backward"],
        ))
        self.assert_well_formed(run, ok=True)
        self.assertEqual(len(run.of_type("case")), 2)


class ErrorTest(LayerRunTestCase):
    def test_bad_shape_reports_shape_error_and_finishes(self):
        run = run_harness(layer_spec(inputs=[{"shape": ["B", 31], "dtype": "float"}], batchSizes=[1, 2]))
        self.assert_well_formed(run, ok=True)
        errors = run.of_type("error")
        self.assertEqual([e["kind"] for e in errors], ["shape", "shape"])
        self.assertTrue(all(e["recoverable"] for e in errors))
        self.assertEqual([e["case"]["batchSize"] for e in errors], [1, 2])
        self.assertIn("mat1 and mat2", errors[0]["message"])

    def test_failing_import_reports_import_error_and_finishes(self):
        run = run_harness(layer_spec(file=str(FIXTURES_DIR / "broken_import.py"), constructor="Model()"))
        self.assert_well_formed(run, ok=False)
        (error,) = run.of_type("error")
        self.assertEqual(error["kind"], "import")
        self.assertFalse(error["recoverable"])
        self.assertIn("shardlens_missing_dependency_xyz", error["message"])
        self.assertEqual(run.of_type("case"), [])

    def test_missing_file_is_an_import_error(self):
        run = run_harness(layer_spec(file=str(FIXTURES_DIR / "no_such_file.py"), constructor="Model()"))
        self.assert_well_formed(run, ok=False)
        self.assertEqual([e["kind"] for e in run.of_type("error")], ["import"])

    def test_constructor_error(self):
        run = run_harness(layer_spec(constructor="nn.Linear(4)"))
        self.assert_well_formed(run, ok=False)
        (error,) = run.of_type("error")
        self.assertEqual(error["kind"], "construct")
        self.assertIn("nn.Linear(4)", error["message"])

    def test_out_of_memory_is_reported_and_larger_batches_skipped(self):
        run = run_harness(layer_spec(
            file=str(FIXTURES_DIR / "oom_module.py"), constructor="FakeOutOfMemory(16)",
            inputs=[{"shape": ["B", 16], "dtype": "float"}], batchSizes=[1, 8, 32],
            modes=["forward", "forward_backward"],
        ))
        self.assert_well_formed(run, ok=True)
        self.assertEqual([(e["case"]["batchSize"], e["case"]["mode"]) for e in run.of_type("case")],
                         [(1, "forward"), (1, "forward_backward")])
        errors = run.of_type("error")
        self.assertEqual([(e["kind"], e["case"]["batchSize"]) for e in errors], [("oom", 8), ("oom", 8)])
        self.assertTrue(all(e["recoverable"] for e in errors))
        skipped = [e for e in run.of_type("progress") if e["message"].startswith("skipped")]
        self.assertEqual(len(skipped), 2)
        self.assertTrue(all("batch 32" in e["message"] for e in skipped))

    @unittest.skipIf(hasattr(torch, "compile"), "this PyTorch has torch.compile")
    def test_compile_on_old_torch_is_unsupported_and_runs_eager(self):
        run = run_harness(layer_spec(compile=True))
        self.assert_well_formed(run, ok=True)
        (error,) = run.of_type("error")
        self.assertEqual((error["kind"], error["recoverable"]), ("unsupported", True))
        self.assertIn("2.0", error["message"])
        self.assertEqual([e["case"]["compiled"] for e in run.of_type("case")], [False])

    def test_missing_gpu_is_a_no_gpu_error(self):
        run = run_harness(layer_spec(device="cuda:0"), extra_env={"CUDA_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": ""})
        self.assert_well_formed(run, ok=False)
        (error,) = run.of_type("error")
        self.assertEqual((error["kind"], error["recoverable"]), ("no_gpu", False))
        self.assertIn("cuda:0", error["message"])

    def test_unreadable_spec_exits_2_with_an_error_event(self):
        run = run_harness(None, raw_text='{"version": 1, "kind": "layer",')
        self.assertEqual(run.returncode, 2)
        self.assertEqual(schema_problems(run.events), [])
        self.assertEqual([e["type"] for e in run.events], ["error", "done"])
        self.assertIn("not valid JSON", run.events[0]["message"])
        self.assertEqual(run.events[0]["runId"], "unknown")

    def test_invalid_field_exits_2_naming_the_field(self):
        run = run_harness(layer_spec(dtype="fp64", runId="bad-dtype"))
        self.assertEqual(run.returncode, 2)
        self.assertEqual(schema_problems(run.events), [])
        error = run.events[0]
        self.assertEqual((error["kind"], error["runId"]), ("other", "bad-dtype"))
        self.assertIn("$.dtype", error["message"])


if __name__ == "__main__":
    unittest.main()
