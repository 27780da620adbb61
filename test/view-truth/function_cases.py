"""`.view()` truth-table cases written as ordinary functions whose tensors arrive as untyped
parameters. Each decorated function is one case: SL201's expected verdict, then the argument
lists it is run with (contiguous `randn` inputs, every size > 1). generate_function_truth.py
runs them with PyTorch; test/unit/rules/layout-view-truth.test.ts checks the analyzer against
the result. Each case holds exactly one `.view(`; undecorated functions are helpers.
"""
import torch

from truth_runner import view_case


# --- transpose, then merge -------------------------------------------------------------


@view_case("information", "randn(2, 4, 5, 8), 2, 5, 32", "randn(3, 2, 4, 6), 3, 4, 12", "randn(2, 3, 4), 2, 4, 3")
def merge_heads(y, B, T, C):
    y = y.transpose(1, 2)
    return y.view(B, T, C)


@view_case("warning", "randn(2, 4, 5, 8), 32", "randn(3, 2, 4, 6), 12")
def merge_heads_rank_pinned(y, C):
    B, nh, T, hs = y.shape
    y = y.transpose(1, 2)
    return y.view(B, T, C)


@view_case("warning", "randn(2, 4, 5, 8), 2, 5, 32", "randn(3, 2, 4, 6), 3, 4, 12")
def merge_heads_rank_asserted(y, B, T, C):
    assert y.dim() == 4
    y = y.transpose(1, 2)
    return y.view(B, T, C)


@view_case("warning", "randn(2, 4, 5, 8)", "randn(3, 2, 4, 6)")
def merge_heads_from_sizes(y):
    B, nh, T, hs = y.size()
    return y.transpose(1, 2).view(B, T, nh * hs)


@view_case("silent", "randn(2, 4, 5, 8)", "randn(3, 2, 4, 6)")
def merge_heads_contiguous(y):
    B, nh, T, hs = y.size()
    return y.transpose(1, 2).contiguous().view(B, T, nh * hs)


@view_case("silent", "randn(2, 4, 5, 8)", "randn(3, 2, 4, 6)")
def merge_heads_reshape_first(y):
    B, nh, T, hs = y.size()
    z = y.transpose(1, 2).reshape(B, T, nh, hs)
    return z.view(B, T, nh, hs)


@view_case("silent", "randn(2, 4, 5, 8)", "randn(3, 2, 4, 6)")
def keep_heads_apart(y):
    B, nh, T, hs = y.size()
    return y.transpose(1, 2).view(B, T, nh, hs)


@view_case("warning", "randn(2, 3)", "randn(4, 5, 6)", "randn(2, 3, 4, 5)")
def transpose_then_flatten(x):
    return x.transpose(0, 1).view(-1)


@view_case("warning", "randn(2, 3, 4)", "randn(3, 4, 5, 2)")
def transpose_last_two_flatten(x):
    x = x.transpose(-2, -1)
    return x.view(-1)


@view_case("silent", "randn(2, 3)", "randn(2, 3, 4)", "randn(3, 4, 5, 2)")
def transpose_then_keep_leading(x):
    return x.transpose(0, 1).view(x.size(1), x.size(0), -1)


@view_case("silent", "randn(2, 3, 4, 5)", "randn(3, 2, 2, 4)")
def transpose_trailing_merge_leading(x):
    a, b, c, d = x.shape
    return x.transpose(2, 3).view(a * b, d, c)


@view_case("information", "randn(2, 3, 4, 5)", "randn(2, 3, 4, 5, 6)")
def transpose_trailing_merge_leading_any_rank(x):
    return x.transpose(2, 3).view(-1, x.size(3), x.size(2))


@view_case("silent", "randn(2, 3, 4)", "randn(3, 4, 5)")
def transpose_same_shape(x):
    a, b, c = x.shape
    return x.transpose(1, 2).view(a, c, b)


@view_case("warning", "randn(2, 3, 4)", "randn(3, 4, 5)")
def swapaxes_flatten(x):
    return x.swapaxes(0, 2).view(-1)


# --- permute ---------------------------------------------------------------------------


@view_case("silent", "randn(2, 3, 4, 5)", "randn(3, 2, 5, 4)")
def channels_last_tokens(images):
    n, c, h, w = images.shape
    return images.permute(0, 2, 3, 1).view(n, h * w, c)


@view_case("warning", "randn(2, 3, 4, 5)", "randn(3, 2, 5, 4)")
def channels_last_flatten(images):
    return images.permute(0, 2, 3, 1).view(images.size(0), -1)


@view_case("warning", "randn(2, 3, 4, 5)", "randn(3, 2, 5, 4)")
def channels_last_merge_width_channels(images):
    n, c, h, w = images.shape
    return images.permute(0, 2, 3, 1).view(n, h, w * c)


@view_case("warning", "randn(2, 3, 4)", "randn(4, 3, 2)")
def reverse_then_flatten(x):
    return x.permute(2, 1, 0).view(-1)


@view_case("silent", "randn(2, 3, 4)", "randn(4, 3, 2)")
def permute_identity_flatten(x):
    return x.permute(0, 1, 2).view(-1)


@view_case("silent", "randn(2, 3, 4)", "randn(4, 3, 2)")
def movedim_front_merge_chained(x):
    a, b, c = x.shape
    return x.movedim(2, 0).view(c, a * b)


@view_case("warning", "randn(2, 3, 4)", "randn(4, 3, 2)")
def movedim_back_merge_moved(x):
    a, b, c = x.shape
    return x.movedim(0, 2).view(b, c * a)


# --- .T, .mT, t() ----------------------------------------------------------------------


@view_case("warning", "randn(3, 4)", "randn(5, 2)")
def matrix_t_flatten(w):
    return w.T.view(-1)


@view_case("silent", "randn(3, 4)", "randn(5, 2)")
def matrix_t_same_shape(w):
    rows, cols = w.shape
    return w.T.view(cols, rows)


@view_case("warning", "randn(3, 4)", "randn(2, 3, 4)", "randn(2, 2, 3, 4)")
def batched_mt_flatten(x):
    return x.mT.view(-1)


@view_case("warning", "randn(2, 3, 4)", "randn(3, 4, 5)")
def batched_mt_merge_last(x):
    b, m, n = x.shape
    return x.mT.view(b, m * n)


@view_case("silent", "randn(2, 3, 4)", "randn(3, 4, 5)")
def batched_mt_keep(x):
    b, m, n = x.shape
    return x.mT.view(b, n, m)


@view_case("information", "randn(3, 4)", "randn(5, 2)", "randn(6)")
def t_method_flatten(w):
    return w.t().view(-1)


@view_case("silent", "randn(3, 8)", "randn(5, 4)")
def t_method_split_first(w):
    rows, cols = w.shape
    return w.t().view(2, cols // 2, rows)


# --- chunk, split, unbind --------------------------------------------------------------


@view_case("information", "randn(4, 6)", "randn(2, 3, 8)", "randn(8)")
def chunk_last_then_flatten(features):
    left, right = features.chunk(2, dim=-1)
    return left.view(-1)


@view_case("silent", "randn(4, 6)", "randn(6, 3, 2)")
def chunk_first_then_flatten(features):
    top, bottom = features.chunk(2, dim=0)
    return top.view(-1)


@view_case("warning", "randn(4, 6)", "randn(6, 4)")
def chunk_matrix_columns_flatten(matrix):
    rows, cols = matrix.shape
    left, right = matrix.chunk(2, dim=1)
    return left.view(rows * cols // 2)


@view_case("warning", "randn(2, 5, 12)", "randn(3, 4, 6)")
def qkv_split_then_flatten(x):
    B, T, C3 = x.shape
    q, k, v = x.split(C3 // 3, dim=2)
    return q.view(B * T * (C3 // 3))


@view_case("silent", "randn(2, 5, 12)", "randn(3, 4, 6)")
def qkv_split_then_heads(x):
    B, T, C3 = x.shape
    q, k, v = x.split(C3 // 3, dim=2)
    return q.view(B, T, 2, -1)


@view_case("warning", "randn(3, 4, 5)", "randn(2, 3, 4)")
def unbind_middle_then_flatten(x):
    a, b, c = x.shape
    return x.unbind(1)[0].view(a * c)


@view_case("silent", "randn(3, 4, 5)", "randn(2, 3, 4)")
def unbind_first_then_flatten(x):
    a, b, c = x.shape
    return x.unbind(0)[1].view(b * c)


# --- slices, expand, unsqueeze, squeeze, flatten --------------------------------------


@view_case("information", "randn(4, 6)", "randn(2, 3, 8)", "randn(4, 5)")
def step_slice_last_flatten(x):
    return x[..., ::2].view(-1)


@view_case("silent", "randn(6, 4)", "randn(8, 3)")
def prefix_slice_rows_flatten(x):
    n, d = x.shape
    return x[: n // 2].view(-1)


@view_case("information", "randn(4, 6), 3", "randn(4, 6), 6")
def prefix_slice_columns_flatten(x, k):
    n, d = x.shape
    return x[:, :k].view(-1)


@view_case("silent", "randn(3, 1)", "randn(5, 1)", "randn(3, 4)")
def expand_then_flatten(x):
    n, one = x.shape
    return x.expand(n, 4).view(-1)


@view_case("silent", "randn(3, 1)", "randn(5, 1)")
def expand_then_split(x):
    n, one = x.shape
    return x.expand(n, 4).view(n, 2, 2)


@view_case("silent", "randn(3, 4)", "randn(2, 5)")
def unsqueeze_transpose_flatten(x):
    a, b = x.shape
    return x.unsqueeze(1).transpose(0, 1).view(a * b)


@view_case("warning", "randn(3, 4)", "randn(2, 5)")
def unsqueeze_then_t_flatten(x):
    a, b = x.shape
    y = x.unsqueeze(0)
    return y.mT.view(a * b)


@view_case("information", "randn(2, 3, 4)", "randn(3, 2, 5)", "randn(2, 3)")
def flatten_copies_then_view(x):
    return x.transpose(0, 1).flatten(1).view(-1)


@view_case("silent", "randn(2, 3, 4)", "randn(3, 2, 5)")
def narrow_rows_flatten(x):
    a, b, c = x.shape
    return x.narrow(0, 0, 1).view(b * c)


@view_case("warning", "randn(2, 3, 4)", "randn(3, 2, 6)")
def narrow_columns_flatten(x):
    a, b, c = x.shape
    return x.narrow(2, 0, c // 2).view(-1)


@view_case("warning", "randn(2, 3, 4)", "randn(3, 2, 5)")
def integer_index_middle_flatten(x):
    a, b, c = x.shape
    return x[:, 0].view(a * c)


# --- shapes spelled with splats, symbolic chunk counts, expand ---------------------------


@view_case("warning", "randn(2, 3, 4)", "randn(2, 3, 4, 5)")
def splat_leading_then_merge_last_two(x):
    x = x.transpose(-2, -1)
    return x.view(*x.shape[:-2], -1)


@view_case("silent", "randn(2, 3, 4)", "randn(2, 3, 5, 4)")
def splat_leading_then_split_last(x):
    x = x.transpose(0, 1)
    return x.view(*x.shape[:-1], 2, -1)


@view_case("information", "randn(2, 6), 2", "randn(3, 4, 9), 3", "randn(8), 4")
def symbolic_chunk_then_flatten(x, n):
    return x.chunk(n, -1)[0].view(-1)


@view_case("warning", "randn(3, 4)", "randn(2, 5)")
def expand_new_middle_then_flatten(x):
    return x.unsqueeze(1).expand(-1, 4, -1).view(-1)


@view_case("information", "randn(2, 3)", "randn(4, 3, 2)", "randn(1, 3, 2)")
def expand_leading_then_flatten(x):
    return x.expand(4, -1, -1).view(-1)


@view_case("silent", "randn(2, 3, 4)", "randn(3, 4, 5)")
def select_last_index_then_flatten(x):
    return x[..., 0].view(-1)


@view_case("silent", "randn(2, 4, 5, 3)", "randn(3, 2, 2, 4)")
def channels_first_merge_spatial(x):
    return x.permute(0, 3, 1, 2).view(x.shape[0], x.shape[3], -1)


# --- helpers in the same file, callers in the same file --------------------------------


def split_heads(x, n_heads):
    B, T, C = x.shape
    return x.view(B, T, n_heads, C // n_heads).transpose(1, 2)


@view_case("warning", "randn(2, 5, 8), 2", "randn(3, 4, 12), 3")
def heads_from_helper_flatten(x, n_heads):
    heads = split_heads(x, n_heads)
    return heads.view(heads.shape[0], heads.shape[2], -1)


@view_case("silent", "randn(2, 5, 8), 2", "randn(3, 4, 12), 3")
def heads_from_helper_back(x, n_heads):
    heads = split_heads(x, n_heads)
    B, nh, T, hs = heads.shape
    return heads.transpose(1, 2).contiguous().view(B, T, nh * hs)


@view_case("silent", "randn(2, 5, 4, 8).transpose(1, 2)", "randn(3, 4, 2, 6).transpose(1, 2)")
def attention_input_back_to_tokens(q):
    B, T, D = q.size(0), q.size(2), q.size(3)
    return q.transpose(1, 2).view(B * T, -1, D)


def attention_caller(x, B, T, n_heads):
    q = x.view(B, T, n_heads, -1).transpose(1, 2)
    return attention_input_back_to_tokens(q)


@view_case("information", "randn(2, 4, 5, 8), 2, 5, 32", "randn(2, 3, 4), 2, 4, 3")
def merge_called_with_matmul(y, B, T, C):
    return y.transpose(1, 2).view(B, T, C)


def matmul_caller(att, v, B, T, C):
    return merge_called_with_matmul(att @ v, B, T, C)


@view_case("warning", "randn(2, 4, 5, 8)", "randn(3, 2, 4, 6)")
def merge_reached_through_a_parameter(y):
    B, nh, T, hs = y.shape
    return y.transpose(1, 2).view(B, T, nh * hs)


def forwards_its_input(x):
    # Its own parameter, with no caller in the file: assumed contiguous, as every parameter is.
    return merge_reached_through_a_parameter(x)


# --- methods: helpers on self, static helpers --------------------------------------------


class HeadLayout:
    def __init__(self, n_heads=2):
        self.n_heads = n_heads

    def _split(self, x):
        B, T, C = x.shape
        return x.view(B, T, self.n_heads, C // self.n_heads).transpose(1, 2)

    @staticmethod
    def _to_channels_last(images):
        return images.permute(0, 2, 3, 1)

    @view_case("warning", "randn(2, 5, 8)", "randn(3, 4, 6)")
    def heads_flattened(self, x):
        heads = self._split(x)
        return heads.view(heads.size(0), heads.size(2), -1)

    @view_case("silent", "randn(2, 5, 8)", "randn(3, 4, 6)")
    def heads_merged_back(self, x):
        heads = self._split(x)
        B, nh, T, hs = heads.shape
        return heads.transpose(1, 2).reshape(B, T, nh * hs).view(B, T, nh, hs)

    @view_case("warning", "randn(2, 3, 4, 5)", "randn(3, 2, 5, 4)")
    def channels_last_flattened(self, images):
        return self._to_channels_last(images).view(images.size(0), -1)

    @view_case("silent", "randn(2, 3, 4, 5)", "randn(3, 2, 5, 4)")
    def channels_last_tokens(self, images):
        n, c, h, w = images.shape
        return self._to_channels_last(images).view(n, h * w, c)


# --- a module's forward, called through an instance in the same file --------------------


class CoreAttention(torch.nn.Module):
    @view_case("silent", "randn(2, 5, 4, 8).transpose(1, 2)", "randn(3, 4, 2, 6).transpose(1, 2)")
    def forward(self, q):
        # The only instance receives `q` transposed, as its caller in this file makes it.
        B, nh, T, hs = q.shape
        return q.transpose(1, 2).view(B, T, nh * hs)


class UsesCoreAttention(torch.nn.Module):
    def __init__(self, n_heads=2):
        super().__init__()
        self.n_heads = n_heads
        self.core = CoreAttention()

    def forward(self, x):
        B, T, C = x.shape
        q = x.view(B, T, self.n_heads, C // self.n_heads).transpose(1, 2)
        return self.core(q)


class MergeHeads(torch.nn.Module):
    @view_case("warning", "randn(2, 4, 5, 8)", "randn(3, 2, 4, 6)")
    def forward(self, y):
        # Never instantiated in this file: `y` keeps the contiguous assumption.
        B, nh, T, hs = y.shape
        return y.transpose(1, 2).view(B, T, nh * hs)
