"""Indexing and array assembly: gathers from integer indexing and
take_along_axis, scatters from x.at[...], dynamic slices, padding,
concatenation, where/clip and sorting."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from corpus import integers, normal, program


@program("gather_integer_index", args=lambda: (normal(10, 6, seed=80), integers(7, seed=81, high=10)))
def gather_integer_index(table, idx):
    return table[idx]


@program("gather_embedding_lookup", args=lambda: (normal(50, 16, seed=82),
                                                  integers(4, 9, seed=83, high=50)),
         note="jnp.take of token ids, mean over the sequence")
def gather_embedding_lookup(embed, tokens):
    return jnp.take(embed, tokens, axis=0).mean(axis=1)


@program("take_along_axis", args=lambda: (normal(5, 8, seed=84), integers(5, 3, seed=85, high=8)))
def take_along_axis(x, idx):
    return jnp.take_along_axis(x, idx, axis=1)


@program("scatter_add", args=lambda: (normal(10, seed=86), integers(6, seed=87, high=10),
                                      normal(6, seed=88)),
         note="x.at[i].add(v) with repeated indices")
def scatter_add(x, idx, v):
    return x.at[idx].add(v)


@program("scatter_set_and_mul", args=lambda: (normal(6, 4, seed=89), np.int32(2), normal(4, seed=90)))
def scatter_set_and_mul(x, i, row):
    y = x.at[i].set(row)
    return y.at[:, 1].multiply(2.0), y.at[0, 0].max(10.0)


@program("segment_sum", args=lambda: (normal(12, 3, seed=91), np.sort(integers(12, seed=92, high=4))))
def segment_sum(data, segment_ids):
    return jax.ops.segment_sum(data, segment_ids, num_segments=4)


@program("dynamic_slice_update", args=lambda: (normal(8, 8, seed=93), np.int32(3), normal(2, 2, seed=94)))
def dynamic_slice_update(x, i, patch):
    window = lax.dynamic_slice(x, (i, i + 1), (3, 2))
    return window, lax.dynamic_update_slice(x, patch, (i, 0))


@program("static_slicing", args=lambda: (normal(9, 10, seed=95),))
def static_slicing(x):
    return x[1:-1:2, ::3], x[::-1, 2], x[..., None, 4:6].squeeze(-2)


@program("pad_constant_and_edge", args=lambda: (normal(4, 5, seed=96),))
def pad_constant_and_edge(x):
    return jnp.pad(x, ((1, 2), (0, 3))), jnp.pad(x, 1, mode="edge"), jnp.pad(x, ((0, 0), (2, 2)), mode="reflect")


@program("concatenate_stack", args=lambda: (normal(3, 4, seed=97), normal(2, 4, seed=98), normal(3, 4, seed=99)))
def concatenate_stack(a, b, c):
    return jnp.concatenate([a, b, c], axis=0), jnp.stack([a, c], axis=-1), jnp.hstack([a, c])


@program("where_clip", args=lambda: (normal(6, 7, seed=100, scale=3.0), normal(6, 7, seed=101)))
def where_clip(x, y):
    return jnp.where(x > y, x, y * 2.0), jnp.clip(x, -1.0, 2.0), jnp.where(x > 0, 1.0, -1.0)


@program("argmax_accuracy", args=lambda: (normal(20, 5, seed=102), integers(20, seed=103, high=5)))
def argmax_accuracy(logits, labels):
    pred = jnp.argmax(logits, axis=-1)
    return pred, jnp.mean((pred == labels).astype(jnp.float32)), jnp.argmin(logits, axis=0)


@program("sort_argsort_topk", args=lambda: (normal(5, 9, seed=104),))
def sort_argsort_topk(x):
    values, indices = lax.top_k(x, 3)
    return jnp.sort(x, axis=-1), jnp.argsort(x, axis=0), values, indices


def _sort_hard_args():
    x = np.array([[3.0, -0.0, np.nan, 0.0, -np.inf, 3.0, -np.nan, 1.5],
                  [2.0, 2.0, -1.0, np.inf, 0.0, -0.0, 7.0, -1.0]], dtype=np.float32)
    ints = np.array([[5, -3, 5, 0], [2, 2, -7, 9], [5, -3, 1, 0]], dtype=np.int32)
    return x, ints, x.astype(np.float16)


@program("sort_hard_values", args=_sort_hard_args,
         note="NaN (both signs), +-0, infinities and ties: sort, argsort, top_k, lexicographic keys, f16")
def sort_hard_values(x, ints, h):
    top, where = lax.top_k(x, 5)
    by_two = lax.sort((ints[0], ints[1], ints[2]), num_keys=2)
    return (jnp.sort(x, axis=1), jnp.argsort(x, axis=1), top, where, jnp.sort(ints, axis=0),
            by_two, jnp.sort(h, axis=1), jnp.argsort(-x, axis=1, stable=True))


@program("masked_mean", args=lambda: (normal(8, 10, seed=105), integers(8, seed=106, low=1, high=11)))
def masked_mean(x, lengths):
    mask = jnp.arange(x.shape[1])[None, :] < lengths[:, None]
    return jnp.sum(jnp.where(mask, x, 0.0), axis=1) / lengths
