"""Sampling (jax.random: top-k, top-p, categorical, gumbel, permutations,
typed keys) and scatter/gather-heavy code (embedding lookups, .at[] updates,
segment ops, sorting, top-k, dynamic slices), as model code writes them."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ecosystem import integers, key, normal, program, uniform

# ----- sampling -----------------------------------------------------------------------


@program("sample_categorical_temperature", "jax.random", args=lambda: (key(500), normal(4, 50, seed=501)),
         note="jax.random.categorical of temperature-scaled logits (gumbel argmax)")
def sample_categorical_temperature(rng, logits):
    return jax.random.categorical(rng, logits / 0.7, axis=-1, shape=(3, 4))


@program("sample_top_k", "jax.random", args=lambda: (key(502), normal(4, 50, seed=503)),
         note="top-k sampling: lax.top_k, categorical over the k, gather the token ids")
def sample_top_k(rng, logits):
    vals, idx = lax.top_k(logits, 8)
    choice = jax.random.categorical(rng, vals, axis=-1)
    return jnp.take_along_axis(idx, choice[:, None], axis=-1)[:, 0], vals


@program("sample_top_p_nucleus", "jax.random", args=lambda: (key(504), normal(4, 50, seed=505, scale=2.0)),
         note="nucleus sampling: sort, cumsum of softmax, mask beyond p=0.9, scatter back, categorical")
def sample_top_p_nucleus(rng, logits):
    order = jnp.argsort(-logits, axis=-1)
    sorted_logits = jnp.take_along_axis(logits, order, axis=-1)
    cum = jnp.cumsum(jax.nn.softmax(sorted_logits, axis=-1), axis=-1)
    keep = cum - jax.nn.softmax(sorted_logits, axis=-1) < 0.9
    masked_sorted = jnp.where(keep, sorted_logits, -jnp.inf)
    masked = jnp.full_like(logits, -jnp.inf)
    masked = masked.at[jnp.arange(4)[:, None], order].set(masked_sorted)
    return jax.random.categorical(rng, masked, axis=-1), keep.sum(-1)


@program("sample_greedy_and_beam_step", "jax.random", args=lambda: (normal(3, 30, seed=506), normal(3, 4, seed=507)),
         note="one beam-search step: log_softmax + beam scores, flatten, top_k, div/mod back")
def sample_greedy_and_beam_step(logits, beam_scores):
    logp = jax.nn.log_softmax(logits, -1)
    total = beam_scores[:, :, None] + logp[:, None, :]
    flat = total.reshape(3, -1)
    scores, idx = lax.top_k(flat, 4)
    return scores, idx // 30, idx % 30, jnp.argmax(logits, -1)


@program("sample_distributions", "jax.random", args=lambda: (key(508),),
         note="normal, uniform, bernoulli, truncated_normal, exponential, gumbel, randint, "
              "laplace, logistic, rademacher")
def sample_distributions(rng):
    ks = jax.random.split(rng, 10)
    return (jax.random.normal(ks[0], (4, 3)), jax.random.uniform(ks[1], (5,), minval=-1, maxval=2),
            jax.random.bernoulli(ks[2], 0.3, (8,)), jax.random.truncated_normal(ks[3], -1.0, 2.0, (6,)),
            jax.random.exponential(ks[4], (4,)), jax.random.gumbel(ks[5], (4,)),
            jax.random.randint(ks[6], (6,), 0, 100), jax.random.laplace(ks[7], (3,)),
            jax.random.logistic(ks[8], (3,)), jax.random.rademacher(ks[9], (5,)))


@program("sample_permutation_choice", "jax.random", args=lambda: (key(509), normal(20, seed=510)),
         note="permutation (sort by random bits), choice without replacement with p, shuffle rows")
def sample_permutation_choice(rng, x):
    k1, k2, k3 = jax.random.split(rng, 3)
    p = jax.nn.softmax(x)
    return (jax.random.permutation(k1, 20), jax.random.choice(k2, 20, (5,), replace=False, p=p),
            jax.random.permutation(k3, x.reshape(5, 4), axis=0))


@program("sample_gamma_beta_dirichlet", "jax.random", args=lambda: (key(511),), rtol=2e-4, atol=2e-5,
         note="gamma, beta, dirichlet, poisson samples (random_gamma, rejection loops)")
def sample_gamma_beta_dirichlet(rng):
    ks = jax.random.split(rng, 4)
    return (jax.random.gamma(ks[0], jnp.array([0.5, 1.0, 3.0])), jax.random.beta(ks[1], 2.0, 3.0, (4,)),
            jax.random.dirichlet(ks[2], jnp.ones(4)), jax.random.poisson(ks[3], 3.0, (5,)))


@program("sample_dropout_fold_in", "jax.random", args=lambda: (key(512), normal(6, 10, seed=513), np.int32(7)),
         note="dropout masks with fold_in(step) per layer, as training loops derive keys")
def sample_dropout_fold_in(rng, x, step):
    k = jax.random.fold_in(rng, step)
    out = []
    for layer in range(3):
        kl = jax.random.fold_in(k, layer)
        keep = jax.random.bernoulli(kl, 0.8, x.shape)
        x = jnp.where(keep, x / 0.8, 0.0)
        out.append(x)
    return out


@program("sample_typed_key_split", "jax.random", args=lambda: (np.int32(42), normal(5, seed=514)),
         note="new-style typed keys: jax.random.key(seed), split, normal, key_data")
def sample_typed_key_split(seed, x):
    k = jax.random.key(seed)
    k1, k2 = jax.random.split(k)
    return x + jax.random.normal(k1, (5,)), jax.random.key_data(k2)


@program("sample_typed_key_argument", "jax.random",
         args=lambda: (jax.random.key(515), normal(3, seed=516)),
         note="a typed key array (key<fry>[]) as an argument and as an output")
def sample_typed_key_argument(k, x):
    k, sub = jax.random.split(k)
    return k, x * jax.random.uniform(sub, (3,))


@program("sample_scan_random_walk", "jax.random", args=lambda: (key(517),),
         note="a random walk: lax.scan over split keys, normal increments, cumulative")
def sample_scan_random_walk(rng):
    def step(carry, k):
        pos = carry + 0.1 * jax.random.normal(k, (2,))
        return pos, pos
    return lax.scan(step, jnp.zeros(2), jax.random.split(rng, 30))[1]


# ----- scatter / gather ----------------------------------------------------------------------


@program("gather_embedding_lookup", "jnp/lax", args=lambda: (normal(100, 16, seed=520), integers(4, 12, seed=521, high=100)),
         note="embedding lookup table[tokens] and its gradient (scatter-add into the table)")
def gather_embedding_lookup(table, tokens):
    def loss(t):
        return jnp.sum(jnp.tanh(t[tokens]) ** 2)
    return table[tokens], jax.grad(loss)(table)


@program("scatter_at_updates", "jnp/lax", args=lambda: (normal(10, 4, seed=522), integers(6, seed=523, high=10),
                                                      normal(6, 4, seed=524)),
         note=".at[idx].add/.set/.mul/.min/.max/.get(mode='fill') with duplicate indices")
def scatter_at_updates(x, idx, upd):
    return (x.at[idx].add(upd), x.at[idx[:3]].set(upd[:3]), x.at[idx].mul(1.5),
            x.at[idx].min(upd), x.at[idx].max(upd),
            x.at[idx + 5].get(mode="fill", fill_value=-1.0))


@program("scatter_segment_ops", "jnp/lax", args=lambda: (normal(40, 3, seed=525), integers(40, seed=526, high=7)),
         note="jax.ops.segment_sum/max/min/prod, sorted and unsorted")
def scatter_segment_ops(x, seg):
    s = jnp.sort(seg)
    return (jax.ops.segment_sum(x, seg, 7), jax.ops.segment_max(x, seg, 7),
            jax.ops.segment_min(x, seg, 7), jax.ops.segment_prod(jnp.tanh(x), seg, 7),
            jax.ops.segment_sum(x, s, 7, indices_are_sorted=True))


@program("gather_take_along_axis_argsort", "jnp/lax", args=lambda: (normal(6, 20, seed=527),),
         note="argsort, take_along_axis, sort along axes, lexsort-like ranks")
def gather_take_along_axis_argsort(x):
    order = jnp.argsort(x, axis=1)
    ranks = jnp.argsort(order, axis=1)
    return jnp.take_along_axis(x, order, 1), ranks, jnp.sort(x, axis=0), jnp.argmax(x, axis=0)


@program("scatter_one_hot_histogram", "jnp/lax", args=lambda: (integers(50, seed=528, high=8), uniform(50, seed=529)),
         note="one_hot, bincount with length, histogram (searchsorted), weighted counts")
def scatter_one_hot_histogram(labels, values):
    hist, edges = jnp.histogram(values, bins=5, range=(0.0, 1.0))
    return (jax.nn.one_hot(labels, 8).sum(0), jnp.bincount(labels, length=8),
            jnp.bincount(labels, weights=values, length=8), hist)


@program("gather_dynamic_slice_update", "jnp/lax", args=lambda: (normal(16, 8, seed=530), np.int32(5), normal(4, 8, seed=531)),
         note="dynamic_slice, dynamic_update_slice (a KV-cache write), clamped indices")
def gather_dynamic_slice_update(cache, pos, new):
    window = lax.dynamic_slice(cache, (pos, 0), (4, 8))
    cache2 = lax.dynamic_update_slice(cache, new, (pos, 0))
    clamped = lax.dynamic_slice(cache, (pos + 20, 0), (4, 8))
    return window, cache2, clamped


@program("gather_kv_cache_attention", "jnp/lax",
         args=lambda: (normal(2, 16, 4, 8, seed=532), normal(2, 1, 4, 8, seed=533), np.int32(6)),
         rtol=2e-4, atol=2e-5,
         note="a decoding step: write k/v at pos into the cache, masked attention over the prefix")
def gather_kv_cache_attention(cache, q, pos):
    cache = lax.dynamic_update_slice_in_dim(cache, q, pos, axis=1)
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, cache) / jnp.sqrt(8.0)
    mask = jnp.arange(16)[None, None, None, :] <= pos
    w = jax.nn.softmax(jnp.where(mask, scores, -1e9), axis=-1)
    return jnp.einsum("bhqk,bkhd->bqhd", w, cache), cache


@program("gather_unique_nonzero_sized", "jnp/lax", args=lambda: (integers(30, seed=534, high=12),),
         note="unique, nonzero, where, argwhere with static size= (jit-compatible)")
def gather_unique_nonzero_sized(x):
    u, counts = jnp.unique(x, size=12, fill_value=-1, return_counts=True)
    nz = jnp.nonzero(x > 6, size=30, fill_value=-1)[0]
    return u, counts, nz, jnp.argwhere(x == 3, size=5, fill_value=-1)


@program("gather_searchsorted_interp", "jnp/lax", args=lambda: (np.sort(uniform(20, seed=535)), uniform(15, seed=536)),
         note="searchsorted (left/right), digitize, piecewise-linear lookup")
def gather_searchsorted_interp(grid, q):
    i = jnp.searchsorted(grid, q)
    j = jnp.searchsorted(grid, q, side="right")
    return i, j, jnp.digitize(q, grid), jnp.interp(q, grid, jnp.sin(6 * grid))


@program("scatter_gather_vmap_batched", "jnp/lax", args=lambda: (normal(5, 12, seed=537), integers(5, 3, seed=538, high=12)),
         note="vmap of per-row gathers and scatter-adds (batched gather/scatter dimensions)")
def scatter_gather_vmap_batched(x, idx):
    def row(r, i):
        return r[i], jnp.zeros(12).at[i].add(r[i])
    return jax.vmap(row)(x, idx)


@program("gather_top_k_moe_routing", "jnp/lax", args=lambda: (normal(10, 8, seed=539), normal(8, 4, seed=540),
                                                             normal(4, 8, 8, seed=541, scale=0.3)),
         rtol=2e-4, atol=2e-5,
         note="mixture-of-experts routing: router top-2, gather expert weights, weighted combine")
def gather_top_k_moe_routing(x, router, experts):
    gates = jax.nn.softmax(x @ router, axis=-1)
    w, e = lax.top_k(gates, 2)
    w = w / w.sum(-1, keepdims=True)
    chosen = experts[e]
    out = jnp.einsum("td,tkdo->tko", x, chosen)
    return jnp.einsum("tk,tko->to", w, out), e


@program("scatter_sparse_matvec_coo", "jnp/lax",
         args=lambda: (integers(60, seed=542, high=20), integers(60, seed=543, high=20), normal(60, seed=544),
                       normal(20, seed=545)),
         note="a COO sparse mat-vec: gather x[col], multiply, segment_sum by row")
def scatter_sparse_matvec_coo(row, col, val, x):
    return jax.ops.segment_sum(val * x[col], row, 20)


@program("gather_image_crop_resize", "jnp/lax", args=lambda: (normal(2, 16, 16, 3, seed=546),),
         rtol=2e-4, atol=2e-5, note="jax.image.resize (linear, nearest) and a strided crop")
def gather_image_crop_resize(img):
    return (jax.image.resize(img, (2, 8, 8, 3), "linear"), jax.image.resize(img, (2, 24, 24, 3), "nearest"),
            img[:, 2:14:2, 1:15:3])


@program("gather_index_tricks", "jnp/lax", args=lambda: (normal(6, 7, 5, seed=547), integers(4, seed=548, high=6)),
         note="advanced indexing: integer arrays on two axes, boolean-free masks, negative strides, tril indices")
def gather_index_tricks(x, idx):
    r, c = jnp.tril_indices(5)
    return (x[idx, :, idx[::-1] % 5], x[::-1, 1::2], x[0][:5, :5][r, c], jnp.diagonal(x, axis1=1, axis2=2),
            jnp.roll(x, 3, axis=1), jnp.flip(x, (0, 2)))
