"""Haiku models as their users write them: hk.transform'd functions whose
parameters come from ``init`` and are applied with ``apply``."""

import haiku as hk
import jax
import jax.numpy as jnp
import jmp
import numpy as np

from ecosystem import integers, normal, program

K = jax.random.PRNGKey


def _init(f, *xs, seed=0):
    t = hk.transform(f)
    return t, t.init(K(seed), *xs)


def _mlp(x):
    return hk.nets.MLP([64, 64, 10], activation=jax.nn.relu)(x)


_MLP = hk.transform(_mlp)


@program("haiku_mlp", "haiku",
         args=lambda: (_MLP.init(K(0), normal(8, 28, seed=20)), normal(8, 28, seed=20)))
def haiku_mlp(params, x):
    return _MLP.apply(params, None, x)


def _cnn(x):
    x = hk.Conv2D(8, 3)(x)
    x = jax.nn.relu(x)
    x = hk.max_pool(x, window_shape=2, strides=2, padding="VALID")
    x = hk.Conv2D(16, 3, stride=1, padding="VALID")(x)
    x = jax.nn.relu(x)
    x = hk.avg_pool(x, window_shape=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding="SAME")
    x = hk.Flatten()(x)
    return hk.Linear(10)(x)


_CNN = hk.transform(_cnn)


@program("haiku_cnn_pool", "haiku",
         args=lambda: (_CNN.init(K(1), normal(2, 16, 16, 3, seed=21)), normal(2, 16, 16, 3, seed=21)))
def haiku_cnn_pool(params, x):
    return _CNN.apply(params, None, x)


def _lstm(xs):
    core = hk.LSTM(32)
    state = core.initial_state(xs.shape[1])
    ys, state = hk.dynamic_unroll(core, xs, state)
    return hk.Linear(3)(ys[-1]), state


_LSTM = hk.transform(_lstm)


@program("haiku_lstm_unroll", "haiku",
         args=lambda: (_LSTM.init(K(2), normal(15, 4, 6, seed=22)), normal(15, 4, 6, seed=22)),
         note="hk.LSTM with hk.dynamic_unroll, time-major [T, B, D]")
def haiku_lstm_unroll(params, xs):
    return _LSTM.apply(params, None, xs)


def _gru_deep(xs):
    core = hk.DeepRNN([hk.GRU(16), jax.nn.tanh, hk.GRU(16)])
    state = core.initial_state(xs.shape[1])
    ys, _ = hk.dynamic_unroll(core, xs, state)
    return ys


_GRU = hk.transform(_gru_deep)


@program("haiku_deep_gru", "haiku",
         args=lambda: (_GRU.init(K(3), normal(10, 2, 5, seed=23)), normal(10, 2, 5, seed=23)),
         note="hk.DeepRNN of two hk.GRU cores")
def haiku_deep_gru(params, xs):
    return _GRU.apply(params, None, xs)


def _attn(x):
    mha = hk.MultiHeadAttention(num_heads=4, key_size=8, w_init=hk.initializers.VarianceScaling(1.0))
    h = hk.LayerNorm(axis=-1, create_scale=True, create_offset=True)(x)
    mask = jnp.tril(jnp.ones((x.shape[1], x.shape[1]), bool))[None, None]
    x = x + mha(h, h, h, mask=mask)
    h = hk.LayerNorm(axis=-1, create_scale=True, create_offset=True)(x)
    h = hk.Linear(64)(h)
    return x + hk.Linear(32)(jax.nn.gelu(h))


_ATTN = hk.transform(_attn)


@program("haiku_transformer_block", "haiku",
         args=lambda: (_ATTN.init(K(4), normal(2, 12, 32, seed=24)), normal(2, 12, 32, seed=24)),
         rtol=2e-4, atol=2e-5, note="hk.MultiHeadAttention (causal), LayerNorm, MLP")
def haiku_transformer_block(params, x):
    return _ATTN.apply(params, None, x)


def _bn(x, is_training):
    x = hk.Linear(24)(x)
    x = hk.BatchNorm(create_scale=True, create_offset=True, decay_rate=0.9)(x, is_training)
    x = jax.nn.relu(x)
    if is_training:
        x = hk.dropout(hk.next_rng_key(), 0.3, x)
    return hk.Linear(2)(x)


_BN = hk.transform_with_state(_bn)


def _bn_args():
    x = normal(16, 10, seed=25)
    params, state = _BN.init(K(5), x, True)
    # Non-trivial running statistics, as after training.
    state = jax.tree_util.tree_map(lambda a: a + 0.3 * normal(*a.shape, seed=26), state)
    return params, state, x


@program("haiku_batchnorm_eval", "haiku", args=_bn_args,
         note="hk.BatchNorm with is_training=False (running averages), no dropout")
def haiku_batchnorm_eval(params, state, x):
    out, _ = _BN.apply(params, state, None, x, False)
    return out


@program("haiku_batchnorm_train_dropout", "haiku",
         args=lambda: _bn_args() + (np.asarray(K(7)),), rtol=2e-4, atol=2e-5,
         note="hk.BatchNorm training (new state) and hk.dropout with an rng key")
def haiku_batchnorm_train_dropout(params, state, x, rng):
    return _BN.apply(params, state, rng, x, True)


def _embed(tokens):
    emb = hk.Embed(vocab_size=50, embed_dim=16)
    h = emb(tokens)
    h = hk.RMSNorm(axis=-1)(h)
    h = hk.Conv1D(16, kernel_shape=3)(h)
    return h @ emb.embeddings.T


_EMBED = hk.transform(_embed)


@program("haiku_embed_conv1d", "haiku",
         args=lambda: (_EMBED.init(K(6), integers(3, 11, seed=27, high=50)),
                       integers(3, 11, seed=27, high=50)),
         note="hk.Embed, RMSNorm, Conv1D, tied logits")
def haiku_embed_conv1d(params, tokens):
    return _EMBED.apply(params, None, tokens)


def _depthwise(x):
    x = hk.DepthwiseConv2D(channel_multiplier=2, kernel_shape=3)(x)
    x = jax.nn.relu6(x)
    x = hk.Conv2D(8, 1)(x)
    x = hk.GroupNorm(groups=2)(x)
    return jnp.mean(x, axis=(1, 2))


_DW = hk.transform(_depthwise)


@program("haiku_depthwise_groupnorm", "haiku",
         args=lambda: (_DW.init(K(8), normal(2, 10, 10, 4, seed=28)), normal(2, 10, 10, 4, seed=28)),
         note="DepthwiseConv2D (feature groups), 1x1 conv, GroupNorm, global mean pool")
def haiku_depthwise_groupnorm(params, x):
    return _DW.apply(params, None, x)


def _resblock(x):
    class Res(hk.Module):
        def __call__(self, x):
            h = hk.Conv2D(8, 3, with_bias=False)(x)
            h = hk.LayerNorm(axis=(-3, -2, -1), create_scale=True, create_offset=True)(h)
            h = jax.nn.relu(h)
            h = hk.Conv2D(8, 3, with_bias=False)(h)
            return jax.nn.relu(x + h)

    x = hk.Conv2D(8, 3)(x)
    for _ in range(2):
        x = Res()(x)
    x = hk.max_pool(x, 3, 2, "SAME")
    return hk.Linear(5)(hk.Flatten()(x))


_RES = hk.transform(_resblock)


@program("haiku_resnet_blocks", "haiku",
         args=lambda: (_RES.init(K(9), normal(2, 12, 12, 3, seed=29)), normal(2, 12, 12, 3, seed=29)),
         rtol=2e-4, atol=2e-5, note="two residual blocks, LayerNorm over CHW, max_pool SAME 3/2")
def haiku_resnet_blocks(params, x):
    return _RES.apply(params, None, x)


def _mixed(x):
    policy = jmp.get_policy("params=float32,compute=bfloat16,output=float32")
    hk.mixed_precision.set_policy(hk.nets.MLP, policy)
    try:
        return hk.nets.MLP([32, 32, 4])(x)
    finally:
        hk.mixed_precision.clear_policy(hk.nets.MLP)


_MIXED = hk.transform(_mixed)


@program("haiku_mixed_precision_jmp", "haiku",
         args=lambda: (_MIXED.init(K(10), normal(4, 16, seed=30)), normal(4, 16, seed=30)),
         rtol=2e-2, atol=2e-2, note="jmp policy: f32 params, bf16 compute, f32 output")
def haiku_mixed_precision_jmp(params, x):
    return _MIXED.apply(params, None, x)


def _vae(x, rng):
    enc = hk.nets.MLP([32, 2 * 4])
    mean, logstd = jnp.split(enc(x), 2, axis=-1)
    z = mean + jnp.exp(logstd) * jax.random.normal(rng, mean.shape)
    logits = hk.nets.MLP([32, x.shape[-1]])(z)
    rec = jnp.sum(jax.nn.softplus(logits) - x * logits, axis=-1)
    kl = 0.5 * jnp.sum(jnp.exp(2 * logstd) + mean ** 2 - 1 - 2 * logstd, axis=-1)
    return jnp.mean(rec + kl)


_VAE = hk.transform(_vae)


@program("haiku_vae_elbo_grad", "haiku",
         args=lambda: (_VAE.init(K(11), (normal(8, 20, seed=31) > 0).astype(np.float32), K(0)),
                       (normal(8, 20, seed=31) > 0).astype(np.float32), np.asarray(K(12))),
         rtol=5e-4, atol=5e-5, note="VAE negative ELBO and its gradient (reparameterised)")
def haiku_vae_elbo_grad(params, x, rng):
    return jax.value_and_grad(lambda p: _VAE.apply(p, None, x, rng))(params)


def _vmapped(x):
    lin = hk.Linear(8)
    return hk.vmap(lambda r: jnp.tanh(lin(r)), split_rng=False)(x)


_VM = hk.transform(_vmapped)


@program("haiku_vmap_scan", "haiku",
         args=lambda: (_VM.init(K(13), normal(5, 6, seed=32)), normal(5, 6, seed=32)),
         note="hk.vmap over rows of a Linear")
def haiku_vmap_scan(params, x):
    return _VM.apply(params, None, x)


def _cnn_loss(params, x):
    return jnp.mean(jnp.square(_CNN.apply(params, None, x)))


@program("haiku_cnn_hessian_vector_product", "haiku",
         args=lambda: (_CNN.init(K(1), normal(2, 16, 16, 3, seed=21)),
                       normal(2, 16, 16, 3, seed=22)),
         rtol=2e-4, atol=2e-5,
         note="forward over reverse through max pooling (select_and_gather_add)")
def haiku_cnn_hessian_vector_product(params, x):
    # The direction: the parameters themselves, scaled.
    direction = jax.tree_util.tree_map(lambda p: 0.1 * p, params)
    return jax.jvp(lambda p: jax.grad(_cnn_loss)(p, x), (params,), (direction,))
