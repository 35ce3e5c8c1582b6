"""Flax (linen and nnx) models as their users write them: MLP, CNN with
pooling, LSTM/GRU over sequences, transformer blocks, BatchNorm and Dropout in
eval mode, mixed precision, embeddings, normalisation layers."""

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from ecosystem import integers, normal, program

K = jax.random.PRNGKey


class MLP(nn.Module):
    features: tuple = (64, 64, 10)

    @nn.compact
    def __call__(self, x):
        for f in self.features[:-1]:
            x = nn.gelu(nn.Dense(f)(x))
        return nn.Dense(self.features[-1])(x)


def _mlp_args():
    x = normal(16, 32, seed=1)
    return MLP().init(K(0), x), x


@program("flax_mlp", "flax", args=_mlp_args, note="linen Dense+gelu, 32-64-64-10, batch 16")
def flax_mlp(params, x):
    return MLP().apply(params, x)


class CNN(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Conv(8, (3, 3))(x))
        x = nn.max_pool(x, (2, 2), strides=(2, 2))
        x = nn.relu(nn.Conv(16, (3, 3), padding="VALID")(x))
        x = nn.avg_pool(x, (2, 2), strides=(2, 2))
        x = x.reshape((x.shape[0], -1))
        return nn.Dense(10)(x)


def _cnn_args():
    x = normal(4, 16, 16, 3, seed=2)
    return CNN().init(K(1), x), x


@program("flax_cnn_pool", "flax", args=_cnn_args, note="NHWC conv, max_pool, avg_pool, dense")
def flax_cnn_pool(params, x):
    return CNN().apply(params, x)


@program("flax_pool_custom_reducer", "flax", args=lambda: (normal(2, 9, 9, 4, seed=3),),
         note="nn.pool with reducers written as lambdas: the generic reduce_window")
def flax_pool_custom_reducer(x):
    # A lambda is not lax.max itself: JAX keeps it as a reducer jaxpr.
    peak = nn.pool(x, -jnp.inf, lambda a, b: jnp.maximum(a, b), (3, 3), (2, 2), "SAME")
    # A softplus-smoothed max, and a product of positive values from 1.
    smooth = nn.pool(x, -jnp.inf, lambda a, b: jnp.logaddexp(a, b), (2, 2), (1, 1), "VALID")
    prod = nn.pool(1.0 + 0.1 * jnp.tanh(x), 1.0, lambda a, b: a * b, (2, 2), (2, 2), "VALID")
    return peak, smooth, prod


@program("flax_cnn_grad", "flax", args=_cnn_args, rtol=1e-3, atol=1e-4,
         note="gradient of a CNN loss: conv transposes, pooling gradients")
def flax_cnn_grad(params, x):
    def loss(p):
        return jnp.mean(jax.nn.log_softmax(CNN().apply(p, x))[:, 0])
    return jax.grad(loss)(params)


class LSTMModel(nn.Module):
    @nn.compact
    def __call__(self, xs):
        ys = nn.RNN(nn.LSTMCell(32))(xs)
        return nn.Dense(4)(ys[:, -1])


def _lstm_args():
    xs = normal(4, 12, 8, seed=3)
    return LSTMModel().init(K(2), xs), xs


@program("flax_lstm_rnn", "flax", args=_lstm_args, note="nn.RNN(nn.LSTMCell) over 12 steps")
def flax_lstm_rnn(params, xs):
    return LSTMModel().apply(params, xs)


class GRUModel(nn.Module):
    @nn.compact
    def __call__(self, xs):
        carry, ys = nn.RNN(nn.GRUCell(24), return_carry=True)(xs)
        return carry, ys


def _gru_args():
    xs = normal(3, 10, 6, seed=4)
    return GRUModel().init(K(3), xs), xs


@program("flax_gru_rnn", "flax", args=_gru_args, note="nn.RNN(nn.GRUCell) with the final carry")
def flax_gru_rnn(params, xs):
    return GRUModel().apply(params, xs)


class Bidirectional(nn.Module):
    @nn.compact
    def __call__(self, xs):
        return nn.Bidirectional(nn.RNN(nn.OptimizedLSTMCell(16)),
                                nn.RNN(nn.OptimizedLSTMCell(16)))(xs)


def _bi_args():
    xs = normal(2, 9, 5, seed=5)
    return Bidirectional().init(K(4), xs), xs


@program("flax_bidirectional_lstm", "flax", args=_bi_args,
         note="nn.Bidirectional of OptimizedLSTMCell RNNs (a reversed scan)")
def flax_bidirectional_lstm(params, xs):
    return Bidirectional().apply(params, xs)


class Block(nn.Module):
    d: int = 32
    heads: int = 4

    @nn.compact
    def __call__(self, x, mask):
        h = nn.LayerNorm()(x)
        h = nn.MultiHeadDotProductAttention(num_heads=self.heads, qkv_features=self.d)(
            h, h, mask=mask)
        x = x + h
        h = nn.LayerNorm()(x)
        h = nn.Dense(4 * self.d)(h)
        h = nn.gelu(h)
        return x + nn.Dense(self.d)(h)


def _block_args():
    x = normal(2, 16, 32, seed=6)
    mask = nn.make_causal_mask(jnp.ones((2, 16)))
    params = Block().init(K(5), x, mask)
    return params, x, np.asarray(mask)


@program("flax_transformer_block", "flax", args=_block_args, rtol=2e-4, atol=2e-5,
         note="pre-LN block: causal MultiHeadDotProductAttention, MLP")
def flax_transformer_block(params, x, mask):
    return Block().apply(params, x, mask)


class BNDropNet(nn.Module):
    @nn.compact
    def __call__(self, x, train: bool = False):
        x = nn.Dense(32)(x)
        x = nn.BatchNorm(use_running_average=not train)(x)
        x = nn.relu(x)
        x = nn.Dropout(0.5, deterministic=not train)(x)
        return nn.Dense(3)(x)


def _bn_args():
    x = normal(8, 12, seed=7)
    variables = BNDropNet().init(K(6), x)
    # Non-trivial running statistics, as after training.
    stats = variables["batch_stats"]["BatchNorm_0"]
    stats = {"mean": normal(32, seed=8, scale=0.1), "var": normal(32, seed=9) ** 2 + 0.5}
    return {"params": variables["params"], "batch_stats": {"BatchNorm_0": stats}}, x


@program("flax_batchnorm_dropout_eval", "flax", args=_bn_args,
         note="BatchNorm(use_running_average) and Dropout(deterministic): eval mode")
def flax_batchnorm_dropout_eval(variables, x):
    return BNDropNet().apply(variables, x, train=False)


@program("flax_batchnorm_train", "flax", args=_bn_args, rtol=2e-4, atol=2e-5,
         note="train mode: batch statistics, mutable batch_stats, dropout with an rng")
def flax_batchnorm_train(variables, x):
    out, updates = BNDropNet().apply(variables, x, train=True, mutable=["batch_stats"],
                                     rngs={"dropout": jax.random.PRNGKey(3)})
    return out, updates


class Bf16MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Dense(64, dtype=jnp.bfloat16)(x)
        x = nn.relu(x)
        x = nn.LayerNorm(dtype=jnp.bfloat16)(x)
        x = nn.Dense(8, dtype=jnp.bfloat16)(x)
        return x.astype(jnp.float32)


def _bf16_args():
    x = normal(8, 32, seed=10)
    return Bf16MLP().init(K(7), x), x


@program("flax_mixed_precision_bf16", "flax", args=_bf16_args, rtol=2e-2, atol=2e-2,
         note="f32 params, bf16 compute (dtype=jnp.bfloat16), f32 output")
def flax_mixed_precision_bf16(params, x):
    return Bf16MLP().apply(params, x)


class Embedder(nn.Module):
    @nn.compact
    def __call__(self, tokens):
        emb = nn.Embed(100, 16)
        h = emb(tokens)
        h = nn.RMSNorm()(h)
        return emb.attend(h)


def _embed_args():
    tokens = integers(4, 10, seed=11, high=100)
    return Embedder().init(K(8), tokens), tokens


@program("flax_embed_tied", "flax", args=_embed_args,
         note="nn.Embed lookup, RMSNorm, tied output projection (attend)")
def flax_embed_tied(params, tokens):
    return Embedder().apply(params, tokens)


class GroupNormConvT(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Conv(8, (3, 3), strides=(2, 2))(x)
        x = nn.GroupNorm(num_groups=4)(x)
        x = nn.swish(x)
        return nn.ConvTranspose(4, (3, 3), strides=(2, 2))(x)


def _gn_args():
    x = normal(2, 12, 12, 4, seed=12)
    return GroupNormConvT().init(K(9), x), x


@program("flax_groupnorm_convtranspose", "flax", args=_gn_args, rtol=2e-4, atol=2e-5,
         note="strided conv, GroupNorm, swish, ConvTranspose (a U-Net stage)")
def flax_groupnorm_convtranspose(params, x):
    return GroupNormConvT().apply(params, x)


class Conv1DNet(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Conv(16, (5,), kernel_dilation=(2,), padding="CAUSAL")(x)
        x = nn.tanh(x)
        x = nn.Conv(16, (3,), feature_group_count=4)(x)
        return jnp.max(x, axis=1)


def _conv1d_args():
    x = normal(3, 40, 8, seed=13)
    return Conv1DNet().init(K(10), x), x


@program("flax_conv1d_dilated", "flax", args=_conv1d_args,
         note="causal dilated 1-D conv, grouped conv, global max pool")
def flax_conv1d_dilated(params, x):
    return Conv1DNet().apply(params, x)


class ScanMLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        class Layer(nn.Module):
            @nn.compact
            def __call__(self, h, _):
                return nn.tanh(nn.Dense(16)(h)) + h, None

        Stack = nn.scan(Layer, variable_axes={"params": 0}, split_rngs={"params": True},
                        length=6)
        h, _ = Stack()(x, None)
        return h


def _scanmlp_args():
    x = normal(4, 16, seed=14)
    return ScanMLP().init(K(11), x), x


@program("flax_nn_scan_layers", "flax", args=_scanmlp_args,
         note="nn.scan over 6 residual layers with stacked parameters")
def flax_nn_scan_layers(params, x):
    return ScanMLP().apply(params, x)


# ----- nnx -----------------------------------------------------------------

class NnxMLP(nnx.Module):
    def __init__(self, rngs):
        self.l1 = nnx.Linear(20, 48, rngs=rngs)
        self.bn = nnx.BatchNorm(48, rngs=rngs)
        self.drop = nnx.Dropout(0.2, rngs=rngs)
        self.l2 = nnx.Linear(48, 5, rngs=rngs)

    def __call__(self, x):
        return self.l2(self.drop(nnx.relu(self.bn(self.l1(x)))))


def _nnx_split(model):
    model.eval()
    return nnx.split(model)


_NNX_MLP = _nnx_split(NnxMLP(nnx.Rngs(0)))


def _nnx_mlp_args():
    return _NNX_MLP[1], normal(6, 20, seed=15)


@program("flax_nnx_mlp_eval", "flax", args=_nnx_mlp_args,
         note="nnx.Linear/BatchNorm/Dropout in eval mode, split into graphdef and state")
def flax_nnx_mlp_eval(state, x):
    model = nnx.merge(_NNX_MLP[0], state)
    return model(x)


class NnxAttention(nnx.Module):
    def __init__(self, rngs):
        self.attn = nnx.MultiHeadAttention(num_heads=2, in_features=16, qkv_features=16,
                                           decode=False, rngs=rngs)
        self.norm = nnx.LayerNorm(16, rngs=rngs)

    def __call__(self, x):
        return self.norm(x + self.attn(x))


_NNX_ATTN = _nnx_split(NnxAttention(nnx.Rngs(1)))


@program("flax_nnx_attention", "flax", args=lambda: (_NNX_ATTN[1], normal(3, 7, 16, seed=16)),
         rtol=2e-4, atol=2e-5, note="nnx.MultiHeadAttention + LayerNorm residual")
def flax_nnx_attention(state, x):
    return nnx.merge(_NNX_ATTN[0], state)(x)


class NnxCNN(nnx.Module):
    def __init__(self, rngs):
        self.conv = nnx.Conv(1, 6, kernel_size=(5, 5), rngs=rngs)
        self.lin = nnx.Linear(6 * 7 * 7, 10, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.conv(x))
        x = nnx.max_pool(x, window_shape=(2, 2), strides=(2, 2))
        return self.lin(x.reshape(x.shape[0], -1))


_NNX_CNN = _nnx_split(NnxCNN(nnx.Rngs(2)))


@program("flax_nnx_cnn", "flax", args=lambda: (_NNX_CNN[1], normal(4, 14, 14, 1, seed=17)),
         note="nnx.Conv + max_pool + Linear (MNIST-style, 14x14)")
def flax_nnx_cnn(state, x):
    return nnx.merge(_NNX_CNN[0], state)(x)
