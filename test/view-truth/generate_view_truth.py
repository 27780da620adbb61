#!/usr/bin/env python3
"""Regenerates view-cases.json: runs each `.view()` case with real PyTorch and records
whether it succeeds or raises. The SL201 rule is checked against this table by
test/unit/rules/layout-view-truth.test.ts. Usage: /usr/bin/python3 generate_view_truth.py [--stdout]
"""
import os

from truth_runner import emit, run_case, torch_version

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "view-cases.json")

# (name, code, params, symbolic verdict). The last line of `code` performs the view under test;
# earlier lines must not raise. `params` bind the function's parameters (symbolic sizes) to
# the sizes PyTorch runs with; `symbolic` is what the rule must say when the sizes are unknown:
# "flag" (fails for every size > 1), "conditional" (may fail), or "silent".
CASES = [
    ("transpose_merge_moved_dims", "x = torch.randn(2, 3, 4)\nout = x.transpose(1, 2).view(2, 12)", None, None),
    ("transpose_split_moved_dim", "x = torch.randn(2, 3, 4)\nout = x.transpose(1, 2).view(2, 2, 2, 3)", None, None),
    ("transpose_same_shape", "x = torch.randn(2, 3, 4)\nout = x.transpose(1, 2).view(2, 4, 3)", None, None),
    ("transpose_merge_untouched_leading", "x = torch.randn(2, 3, 4, 5)\nout = x.transpose(2, 3).view(6, 5, 4)", None, None),
    ("transpose_flatten_all", "x = torch.randn(2, 3, 4)\nout = x.transpose(0, 1).view(-1)", None, None),
    ("nchw_to_nhwc_merge_hw", "x = torch.randn(2, 3, 4, 5)\nout = x.permute(0, 2, 3, 1).view(2, 20, 3)", None, None),
    ("nchw_to_nhwc_merge_wc", "x = torch.randn(2, 3, 4, 5)\nout = x.permute(0, 2, 3, 1).view(2, 4, 15)", None, None),
    ("permute_flatten_all", "x = torch.randn(2, 3, 4, 5)\nout = x.permute(0, 2, 3, 1).view(-1)", None, None),
    ("attention_heads_merge_without_contiguous", "y = torch.randn(2, 4, 5, 8)\nout = y.transpose(1, 2).view(2, 5, 32)", None, None),
    ("attention_heads_merge_with_contiguous", "y = torch.randn(2, 4, 5, 8)\nout = y.transpose(1, 2).contiguous().view(2, 5, 32)", None, None),
    ("attention_heads_split_then_back", "x = torch.randn(2, 5, 32)\nq = x.view(2, 5, 4, 8).transpose(1, 2)\nout = q.view(2, 4, 5, 8)", None, None),
    ("t_attribute_flatten", "x = torch.randn(3, 4)\nout = x.T.view(12)", None, None),
    ("t_attribute_same_shape", "x = torch.randn(3, 4)\nout = x.T.view(4, 3)", None, None),
    ("t_attribute_split", "x = torch.randn(3, 4)\nout = x.T.view(2, 2, 3)", None, None),
    ("mt_attribute_merge_last", "x = torch.randn(2, 3, 4)\nout = x.mT.view(2, 12)", None, None),
    ("mt_attribute_merge_first", "x = torch.randn(2, 3, 4)\nout = x.mT.view(8, 3)", None, None),
    ("step_slice_chains", "x = torch.randn(2, 3, 8)\nout = x[..., ::2].view(-1)", None, None),
    ("step_slice_breaks", "x = torch.randn(4, 5)\nout = x[..., ::2].view(-1)", None, None),
    ("prefix_slice_last_dim_flatten", "x = torch.randn(4, 6)\nout = x[..., :3].view(-1)", None, None),
    ("prefix_slice_last_dim_keep", "x = torch.randn(4, 6)\nout = x[..., :3].view(4, 3, 1)", None, None),
    ("prefix_slice_first_dim", "x = torch.randn(6, 4)\nout = x[:3].view(-1)", None, None),
    ("step_slice_first_dim_flatten", "x = torch.randn(6, 4)\nout = x[::2].view(-1)", None, None),
    ("step_slice_first_dim_split", "x = torch.randn(6, 4)\nout = x[::2].view(3, 2, 2)", None, None),
    ("size_one_transposed_leading", "x = torch.randn(1, 3, 4)\nout = x.transpose(0, 1).view(3, 4)", None, None),
    ("size_one_transposed_trailing", "x = torch.randn(3, 1, 4)\nout = x.transpose(1, 2).view(3, 4)", None, None),
    ("size_one_permuted_reversed", "x = torch.randn(2, 1, 3)\nout = x.permute(2, 1, 0).view(6)", None, None),
    ("expand_flatten", "x = torch.randn(3, 1)\nout = x.expand(3, 4).view(12)", None, None),
    ("expand_split_expanded_dim", "x = torch.randn(3, 1)\nout = x.expand(3, 4).view(3, 2, 2)", None, None),
    ("expand_new_leading_flatten", "x = torch.randn(4)\nout = x.expand(3, 4).view(12)", None, None),
    ("expand_keep_dims", "x = torch.randn(1, 4)\nout = x.expand(3, 4).view(3, 4, 1)", None, None),
    ("narrow_last_dim_flatten", "x = torch.randn(4, 6)\nout = x.narrow(1, 0, 3).view(-1)", None, None),
    ("narrow_first_dim_flatten", "x = torch.randn(6, 4)\nout = x.narrow(0, 1, 3).view(-1)", None, None),
    ("movedim_to_front_merge_chained", "x = torch.randn(2, 3, 4)\nout = x.movedim(2, 0).view(4, 6)", None, None),
    ("movedim_to_back_merge_chained", "x = torch.randn(2, 3, 4)\nout = x.movedim(0, 2).view(12, 2)", None, None),
    ("movedim_to_back_merge_moved", "x = torch.randn(2, 3, 4)\nout = x.movedim(0, 2).view(3, 8)", None, None),
    ("swapaxes_flatten", "x = torch.randn(2, 3, 4)\nout = x.swapaxes(0, 2).view(-1)", None, None),
    ("unsqueeze_transpose_size_one", "x = torch.randn(3, 4)\nout = x.unsqueeze(1).transpose(0, 1).view(12)", None, None),
    ("flatten_copies_then_view", "x = torch.randn(2, 3, 4)\nout = x.transpose(0, 1).flatten(1).view(-1)", None, None),
    ("reshape_split_then_merge_chained", "x = torch.randn(2, 3, 4)\ny = x.permute(1, 0, 2).reshape(3, 2, 2, 2)\nout = y.view(3, 2, 4)", None, None),
    ("reshape_split_then_merge_moved", "x = torch.randn(2, 3, 4)\ny = x.permute(1, 0, 2).reshape(3, 2, 2, 2)\nout = y.view(3, 4, 2)", None, None),
    ("integer_index_middle", "x = torch.randn(2, 3, 4)\nout = x[:, 0].view(-1)", None, None),
    ("integer_index_first", "x = torch.randn(2, 3, 4)\nout = x[0].view(-1)", None, None),
    ("none_index_after_t", "x = torch.randn(3, 4)\nout = x.T[None].view(1, 12)", None, None),
    ("full_then_t", "x = torch.full((2, 3), 1.0)\nout = x.t().view(6)", None, None),
    ("t_then_split_first", "x = torch.randn(2, 12)\nout = x.t().view(3, 4, 2)", None, None),
    # Symbolic sizes: the function's parameters; PyTorch runs them with `params`.
    ("symbolic_transpose_merge", "x = torch.randn(B, T, C)\nout = x.transpose(1, 2).view(B, T * C)", {"B": 2, "T": 3, "C": 4}, "flag"),
    ("symbolic_transpose_contiguous", "x = torch.randn(B, T, C)\nout = x.transpose(1, 2).contiguous().view(B, T * C)", {"B": 2, "T": 3, "C": 4}, "silent"),
    ("symbolic_attention_merge_heads", "y = torch.randn(B, nh, T, hs)\nout = y.transpose(1, 2).view(B, T, nh * hs)", {"B": 2, "nh": 4, "T": 5, "hs": 8}, "flag"),
    ("symbolic_attention_keep_heads", "y = torch.randn(B, nh, T, hs)\nout = y.transpose(1, 2).view(B, T, nh, hs)", {"B": 2, "nh": 4, "T": 5, "hs": 8}, "silent"),
    ("symbolic_nhwc_merge_hw", "x = torch.randn(N, C, H, W)\nout = x.permute(0, 2, 3, 1).view(N, H * W, C)", {"N": 2, "C": 3, "H": 4, "W": 5}, "silent"),
    ("symbolic_nhwc_flatten", "x = torch.randn(N, C, H, W)\nout = x.permute(0, 2, 3, 1).view(N, -1)", {"N": 2, "C": 3, "H": 4, "W": 5}, "flag"),
    ("symbolic_prefix_slice_flatten", "x = torch.randn(B, T, C)\nout = x[:, :, :k].view(B, -1)", {"B": 2, "T": 3, "C": 4, "k": 2}, "conditional"),
    ("symbolic_step_slice_flatten", "x = torch.randn(B, T, C)\nout = x[:, ::2].view(B, -1)", {"B": 2, "T": 4, "C": 3}, "flag"),
    ("symbolic_heads_from_width", "x = torch.randn(B, T, C)\nq = x.view(B, T, n_head, C // n_head).transpose(1, 2)\nout = q.view(B, n_head, T * (C // n_head))", {"B": 2, "T": 3, "C": 8, "n_head": 2}, "flag"),
]


def build():
    table = []
    for name, code, params, symbolic in CASES:
        ok, error = run_case(code, params)
        entry = {"name": name, "code": code, "ok": ok, "error": error}
        if params is not None:
            entry["params"] = params
            entry["symbolic"] = symbolic
        table.append(entry)
    return {"torch": torch_version(), "cases": table}


def main():
    emit(build(), TABLE)


if __name__ == "__main__":
    main()
