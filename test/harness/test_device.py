"""Device detection with torch.cuda mocked: the ROCm path (hip set: rocm, wavefront 64, rccl) and CUDA."""

import unittest
from types import SimpleNamespace
from unittest import mock

import support  # noqa: F401  (puts bench/ on sys.path)
import torch
from shardlens_bench import device as device_module
from shardlens_bench.errors import HarnessError
from shardlens_bench.peaks import find_peak

GIB = 2**30


def fake_gpu(name, hip, cuda, props):
    """Patch torch so one GPU with the given name, properties and build versions appears."""
    return mock.patch.multiple(
        torch.cuda, is_available=mock.Mock(return_value=True), device_count=mock.Mock(return_value=1),
        get_device_name=mock.Mock(return_value=name), get_device_properties=mock.Mock(return_value=props),
    ), mock.patch.object(torch.version, "hip", hip, create=True), mock.patch.object(torch.version, "cuda", cuda)


class RocmDetectionTest(unittest.TestCase):
    def test_hip_build_is_rocm_with_wavefront_64_and_rccl(self):
        props = SimpleNamespace(total_memory=192 * GIB)  # no warp_size attribute, as in older PyTorch
        cuda_patch, hip_patch, version_patch = fake_gpu("AMD Instinct MI300X", "6.0.32830", None, props)
        with cuda_patch, hip_patch, version_patch:
            info = device_module.describe_device(device_module.resolve_device("auto"))
            versions = device_module.versions()
        self.assertEqual(info.backend, "rocm")
        self.assertEqual(info.warp_size, 64)
        self.assertEqual(info.collective_backend, "rccl")
        self.assertEqual((info.torch_device, info.index, info.memory_bytes), ("cuda:0", 0, 192 * GIB))
        self.assertEqual((versions["hip"], versions["cuda"]), ("6.0.32830", None))
        peak = find_peak(info.name, "bf16", info.backend)
        self.assertEqual((peak.tflops, peak.bandwidth_gbps), (1307.4, 5300.0))

    def test_device_property_warp_size_wins(self):
        props = SimpleNamespace(total_memory=64 * GIB, warp_size=32)  # e.g. an RDNA GPU in wave32 mode
        cuda_patch, hip_patch, version_patch = fake_gpu("AMD Radeon PRO W7900", "6.0", None, props)
        with cuda_patch, hip_patch, version_patch:
            self.assertEqual(device_module.describe_device("cuda:0").warp_size, 32)


class CudaDetectionTest(unittest.TestCase):
    def test_cuda_build_is_cuda_with_warp_32_and_nccl(self):
        props = SimpleNamespace(total_memory=80 * GIB)
        cuda_patch, hip_patch, version_patch = fake_gpu("NVIDIA H100 80GB HBM3", None, "12.4", props)
        with cuda_patch, hip_patch, version_patch:
            info = device_module.describe_device(device_module.resolve_device("cuda:0"))
        self.assertEqual((info.backend, info.warp_size, info.collective_backend), ("cuda", 32, "nccl"))
        peak = find_peak(info.name, "bf16", "cuda")
        self.assertEqual((peak.tflops, peak.bandwidth_gbps), (989.0, 3350.0))

    def test_missing_gpu_index_is_no_gpu(self):
        cuda_patch, hip_patch, version_patch = fake_gpu("NVIDIA H100 80GB HBM3", None, "12.4", SimpleNamespace())
        with cuda_patch, hip_patch, version_patch, self.assertRaises(HarnessError) as raised:
            device_module.resolve_device("cuda:3")
        self.assertEqual(raised.exception.kind, "no_gpu")
        self.assertIn("only 1 GPU", raised.exception.message)

    def test_no_cuda_at_all_is_no_gpu_and_auto_falls_back(self):
        with mock.patch.object(torch.cuda, "is_available", return_value=False), \
                mock.patch.object(device_module, "_mps_available", return_value=False):
            self.assertEqual(device_module.resolve_device("auto"), "cpu")
            with self.assertRaises(HarnessError) as raised:
                device_module.resolve_device("cuda:0")
        self.assertEqual(raised.exception.kind, "no_gpu")


class PeakTableTest(unittest.TestCase):
    def test_names_match_the_specific_row_first(self):
        cases = {
            ("NVIDIA H100 PCIe", "bf16"): 756.0, ("NVIDIA H100 80GB HBM3", "fp16"): 989.0,
            ("NVIDIA H200", "bf16"): 989.0, ("NVIDIA A100-SXM4-80GB", "bf16"): 312.0,
            ("NVIDIA A100-SXM4-80GB", "fp32"): 19.5, ("NVIDIA L40S", "bf16"): 362.05,
            ("NVIDIA A10G", "fp16"): 125.0, ("NVIDIA GeForce RTX 4090", "bf16"): 165.2,
            ("AMD Instinct MI250X", "bf16"): 191.5,  # one GCD: half the data sheet's per-package 383
        }
        for (name, dtype), tflops in cases.items():
            with self.subTest(name=name, dtype=dtype):
                self.assertEqual(find_peak(name, dtype, "cuda").tflops, tflops)
        self.assertEqual(find_peak("NVIDIA A100-SXM4-80GB", "bf16", "cuda").bandwidth_gbps, 2039.0)
        self.assertEqual(find_peak("NVIDIA A100-PCIE-40GB", "bf16", "cuda").bandwidth_gbps, 1555.0)

    def test_unknown_device_has_null_peaks_with_reason(self):
        peak = find_peak("NVIDIA GeForce GTX 1080", "fp32", "cuda")
        self.assertIsNone(peak.tflops)
        self.assertIsNone(peak.ridge_flops_per_byte)
        self.assertIn("GTX 1080", peak.source)


if __name__ == "__main__":
    unittest.main()
