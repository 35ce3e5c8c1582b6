"""Equinox models as their users write them: modules are pytrees passed to
the function (or closed over), eqx.filter_* transforms, eqx.nn layers."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ecosystem import integers, normal, program

K = jax.random.PRNGKey


def _mlp_args():
    model = eqx.nn.MLP(12, 3, width_size=32, depth=2, activation=jax.nn.softplus, key=K(0))
    return model, normal(10, 12, seed=40)


@program("equinox_mlp_vmap", "equinox", args=_mlp_args,
         filter_jit=True,
         note="eqx.nn.MLP (softplus), jax.vmap over a batch")
def equinox_mlp_vmap(model, x):
    return jax.vmap(model)(x)


class CNN(eqx.Module):
    layers: list

    def __init__(self, key):
        k1, k2, k3 = jax.random.split(key, 3)
        self.layers = [
            eqx.nn.Conv2d(1, 4, kernel_size=3, key=k1), jax.nn.relu,
            eqx.nn.MaxPool2d(kernel_size=2, stride=2),
            eqx.nn.Conv2d(4, 8, kernel_size=3, padding=1, key=k2), jax.nn.relu,
            eqx.nn.AvgPool2d(kernel_size=2, stride=2),
            jnp.ravel, eqx.nn.Linear(8 * 3 * 3, 10, key=k3), jax.nn.log_softmax,
        ]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def _cnn_args():
    return CNN(K(1)), normal(4, 1, 14, 14, seed=41)


@program("equinox_cnn_pool", "equinox", args=_cnn_args,
         filter_jit=True,
         note="Conv2d, MaxPool2d, AvgPool2d, Linear, log_softmax; vmapped CHW images")
def equinox_cnn_pool(model, x):
    return jax.vmap(model)(x)


@program("equinox_cnn_grad", "equinox", args=lambda: _cnn_args() + (integers(4, seed=42),),
         rtol=1e-3, atol=1e-4, filter_jit=True,
         note="eqx.filter_value_and_grad of the CNN's NLL")
def equinox_cnn_grad(model, x, y):
    def loss(m):
        logp = jax.vmap(m)(x)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))
    return eqx.filter_value_and_grad(loss)(model)


class LSTMClassifier(eqx.Module):
    cell: eqx.nn.LSTMCell
    head: eqx.nn.Linear

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.cell = eqx.nn.LSTMCell(4, 16, key=k1)
        self.head = eqx.nn.Linear(16, 2, key=k2)

    def __call__(self, xs):
        def step(carry, x):
            return self.cell(x, carry), None
        init = (jnp.zeros(16), jnp.zeros(16))
        (h, _), _ = jax.lax.scan(step, init, xs)
        return self.head(h)


@program("equinox_lstm_scan", "equinox",
         args=lambda: (LSTMClassifier(K(2)), normal(3, 20, 4, seed=43)),
         note="eqx.nn.LSTMCell under lax.scan, vmapped over a batch")
def equinox_lstm_scan(model, xs):
    return jax.vmap(model)(xs)


def _gru_args():
    return eqx.nn.GRUCell(3, 8, key=K(3)), normal(12, 3, seed=44)


@program("equinox_gru_scan", "equinox", args=_gru_args, note="eqx.nn.GRUCell scanned over 12 steps")
def equinox_gru_scan(cell, xs):
    def step(h, x):
        h = cell(x, h)
        return h, h
    return jax.lax.scan(step, jnp.zeros(8), xs)


class Block(eqx.Module):
    attn: eqx.nn.MultiheadAttention
    ln1: eqx.nn.LayerNorm
    ln2: eqx.nn.LayerNorm
    mlp: eqx.nn.MLP

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.attn = eqx.nn.MultiheadAttention(num_heads=4, query_size=32, key=k1)
        self.ln1 = eqx.nn.LayerNorm(32)
        self.ln2 = eqx.nn.LayerNorm(32)
        self.mlp = eqx.nn.MLP(32, 32, 64, depth=1, activation=jax.nn.gelu, key=k2)

    def __call__(self, x):
        h = jax.vmap(self.ln1)(x)
        mask = jnp.tril(jnp.ones((x.shape[0], x.shape[0]), bool))
        x = x + self.attn(h, h, h, mask=mask)
        return x + jax.vmap(self.mlp)(jax.vmap(self.ln2)(x))


@program("equinox_transformer_block", "equinox",
         args=lambda: (Block(K(4)), normal(10, 32, seed=45)), rtol=2e-4, atol=2e-5,
         filter_jit=True,
         note="eqx.nn.MultiheadAttention (causal mask), LayerNorm, MLP")
def equinox_transformer_block(block, x):
    return block(x)


def _bn_args():
    model, state = eqx.nn.make_with_state(eqx.nn.BatchNorm)(8, axis_name="batch", momentum=0.9,
                                                            mode="ema")
    model = eqx.nn.inference_mode(model)
    # running statistics, as after training
    state = state.set(model.ema_state_index,
                      (normal(8, seed=46, scale=0.2), normal(8, seed=47) ** 2 + 0.5))
    lin = eqx.nn.Linear(5, 8, key=K(5))
    drop = eqx.nn.Dropout(0.4, inference=True)
    return (lin, model, drop), state, normal(6, 5, seed=48)


@program("equinox_batchnorm_dropout_eval", "equinox", args=_bn_args, filter_jit=True,
         note="eqx.nn.BatchNorm (inference mode, eqx.nn.State) and Dropout(inference=True)")
def equinox_batchnorm_dropout_eval(model, state, x):
    lin, bn, drop = model

    def one(xi):
        h, _ = bn(lin(xi), state)
        return drop(jax.nn.relu(h))
    return jax.vmap(one)(x)


@program("equinox_layernorm_rmsnorm_embedding", "equinox",
         args=lambda: ((eqx.nn.Embedding(40, 12, key=K(6)), eqx.nn.RMSNorm(12),
                        eqx.nn.GroupNorm(3, 12)), integers(9, seed=49, high=40)),
         note="Embedding lookup, RMSNorm, GroupNorm")
def equinox_layernorm_rmsnorm_embedding(model, tokens):
    emb, rms, gn = model
    h = jax.vmap(emb)(tokens)
    h = jax.vmap(rms)(h)
    return gn(h.T)


@program("equinox_conv_transpose_1d", "equinox",
         args=lambda: ((eqx.nn.Conv1d(3, 6, 4, stride=2, key=K(7)),
                        eqx.nn.ConvTranspose1d(6, 3, 4, stride=2, key=K(8))),
                       normal(3, 32, seed=50)),
         note="strided Conv1d then ConvTranspose1d (an autoencoder)")
def equinox_conv_transpose_1d(model, x):
    enc, dec = model
    return dec(jax.nn.tanh(enc(x)))


def _train_args():
    model = eqx.nn.MLP(4, 1, 16, 2, key=K(9))
    import optax
    opt = optax.adam(1e-2)
    state = opt.init(eqx.filter(model, eqx.is_inexact_array))
    return model, state, normal(32, 4, seed=51), normal(32, 1, seed=52)


@program("equinox_train_step_adam", "equinox", args=_train_args, rtol=5e-4, atol=5e-5,
         filter_jit=True,
         note="the equinox training loop body: filter_value_and_grad, optax.adam, apply_updates")
def equinox_train_step_adam(model, opt_state, x, y):
    import optax
    opt = optax.adam(1e-2)

    def loss(m):
        return jnp.mean((jax.vmap(m)(x) - y) ** 2)
    value, grads = eqx.filter_value_and_grad(loss)(model)
    updates, opt_state = opt.update(grads, opt_state, eqx.filter(model, eqx.is_inexact_array))
    model = eqx.apply_updates(model, updates)
    return value, model, opt_state


@program("equinox_filter_vmap_ensemble", "equinox",
         args=lambda: (eqx.filter_vmap(lambda k: eqx.nn.MLP(3, 2, 8, 1, key=k))(
             jax.random.split(K(10), 5)), normal(7, 3, seed=53)),
         filter_jit=True,
         note="an ensemble of 5 MLPs built and applied with eqx.filter_vmap")
def equinox_filter_vmap_ensemble(ensemble, x):
    return eqx.filter_vmap(lambda m: jax.vmap(m)(x))(ensemble)


@program("equinox_tree_at_surgery", "equinox",
         args=lambda: (eqx.nn.MLP(6, 6, 10, 2, key=K(11)), normal(6, seed=54)),
         filter_jit=True,
         note="eqx.tree_at replaces a layer's weight inside the traced function")
def equinox_tree_at_surgery(model, x):
    w = model.layers[1].weight
    model2 = eqx.tree_at(lambda m: m.layers[1].weight, model, w * 0.5)
    return model(x), model2(x)


@program("equinox_mlp_bf16", "equinox",
         args=lambda: (eqx.nn.MLP(16, 4, 32, 2, key=K(12), dtype=jnp.bfloat16),
                       normal(8, 16, seed=55)),
         rtol=2e-2, atol=2e-2, filter_jit=True,
         note="an MLP with bf16 parameters, input cast to bf16")
def equinox_mlp_bf16(model, x):
    return jax.vmap(model)(x.astype(jnp.bfloat16)).astype(jnp.float32)


def _stacked_args():
    keys = jax.random.split(K(13), 4)
    layers = eqx.filter_vmap(lambda k: eqx.nn.Linear(8, 8, key=k))(keys)
    params, static = eqx.partition(layers, eqx.is_array)
    return params, normal(8, seed=56)


_STATIC_LAYER = eqx.partition(eqx.nn.Linear(8, 8, key=K(0)), eqx.is_array)[1]


@program("equinox_scan_over_layers", "equinox", args=_stacked_args,
         note="the scan-over-layers idiom: stacked layers split with eqx.partition, "
              "eqx.combine inside lax.scan")
def equinox_scan_over_layers(params, x):
    def body(h, p):
        layer = eqx.combine(p, _STATIC_LAYER)
        return jnp.tanh(layer(h)) + h, None
    return jax.lax.scan(body, x, params)[0]
