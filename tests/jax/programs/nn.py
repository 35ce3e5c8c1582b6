"""Neural-network building blocks as JAX users write them: softmax and
friends, normalisation, attention, a training step, activations and losses
(several of them custom_jvp / custom_vjp functions)."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.scipy.special import logsumexp

from corpus import integers, normal, program


@program("softmax", args=lambda: (normal(8, 32, seed=10, scale=3.0),))
def softmax(x):
    return jax.nn.softmax(x, axis=-1)


@program("log_softmax", args=lambda: (normal(8, 32, seed=11, scale=3.0),))
def log_softmax(x):
    return jax.nn.log_softmax(x, axis=-1)


@program("logsumexp", args=lambda: (normal(6, 40, seed=12, scale=5.0),))
def logsumexp_rows(x):
    return logsumexp(x, axis=1)


@program("softmax_manual_stable", args=lambda: (normal(4, 16, seed=13, scale=10.0),))
def softmax_manual_stable(x):
    z = x - jnp.max(x, axis=-1, keepdims=True)
    e = jnp.exp(z)
    return e / jnp.sum(e, axis=-1, keepdims=True)


def _layer_norm_args():
    return normal(8, 64, seed=14, scale=2.0), normal(64, seed=15), normal(64, seed=16)


@program("layer_norm", args=_layer_norm_args)
def layer_norm(x, gamma, beta):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5) * gamma + beta


@program("rms_norm", args=lambda: (normal(8, 64, seed=17), normal(64, seed=18)))
def rms_norm(x, scale):
    return x * jax.lax.rsqrt(jnp.mean(jnp.square(x), axis=-1, keepdims=True) + 1e-6) * scale


def _mha_args():
    b, t, d = 2, 8, 32
    return (normal(b, t, d, seed=19),
            normal(d, d, seed=20, scale=d ** -0.5), normal(d, d, seed=21, scale=d ** -0.5),
            normal(d, d, seed=22, scale=d ** -0.5), normal(d, d, seed=23, scale=d ** -0.5))


@program("multi_head_attention_causal", args=_mha_args,
         note="4 heads, causal mask with jnp.where and -inf")
def multi_head_attention_causal(x, wq, wk, wv, wo):
    heads = 4
    b, t, d = x.shape

    def split(h):
        return h.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3)

    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(d // heads).astype(x.dtype)
    mask = jnp.tril(jnp.ones((t, t), dtype=bool))
    scores = jnp.where(mask, scores, -jnp.inf)
    attn = jax.nn.softmax(scores, axis=-1)
    out = jnp.einsum("bhqk,bhkd->bhqd", attn, v).transpose(0, 2, 1, 3).reshape(b, t, d)
    return out @ wo


@program("dot_product_attention_nn", args=lambda: (normal(2, 6, 2, 8, seed=24),
                                                   normal(2, 6, 2, 8, seed=25),
                                                   normal(2, 6, 2, 8, seed=26)),
         note="jax.nn.dot_product_attention (B, T, N, H), causal")
def dot_product_attention_nn(q, k, v):
    return jax.nn.dot_product_attention(q, k, v, is_causal=True)


def _mlp_init():
    return {"w1": normal(8, 16, seed=27, scale=0.3), "b1": np.zeros(16, np.float32),
            "w2": normal(16, 3, seed=28, scale=0.3), "b2": np.zeros(3, np.float32)}


def _mlp(params, x):
    h = jax.nn.tanh(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def _train_args():
    params = _mlp_init()
    opt_state = optax.adam(1e-2).init(params)
    opt_state = jax.tree_util.tree_map(np.asarray, opt_state)
    return params, opt_state, normal(32, 8, seed=29), normal(32, 3, seed=30)


@program("mlp_train_step_adam", args=_train_args,
         note="value_and_grad of an MSE and one optax.adam update")
def mlp_train_step_adam(params, opt_state, x, y):
    def loss_fn(p):
        return jnp.mean((_mlp(p, x) - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = optax.adam(1e-2).update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


def _sgd_args():
    return _mlp_init(), normal(16, 8, seed=31), integers(16, seed=32, high=3)


@program("mlp_train_step_sgd_xent", args=_sgd_args,
         note="grad of softmax cross-entropy with integer labels, SGD by hand")
def mlp_train_step_sgd_xent(params, x, labels):
    def loss_fn(p):
        logits = _mlp(p, x)
        return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

    loss, grads = jax.value_and_grad(loss_fn)(params)
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads), loss


@program("one_hot_cross_entropy", args=lambda: (normal(16, 10, seed=33, scale=2.0),
                                                 integers(16, seed=34, high=10)))
def one_hot_cross_entropy(logits, labels):
    onehot = jax.nn.one_hot(labels, logits.shape[-1])
    return -jnp.mean(jnp.sum(onehot * jax.nn.log_softmax(logits), axis=-1))


@program("sigmoid_binary_cross_entropy", args=lambda: (normal(32, seed=35, scale=4.0),
                                                        (integers(32, seed=36, high=2)
                                                         .astype(np.float32))),
         note="optax loss: log_sigmoid via softplus/logaddexp (custom_jvp)")
def sigmoid_binary_cross_entropy(logits, labels):
    return optax.sigmoid_binary_cross_entropy(logits, labels)


@program("relu_custom_jvp", args=lambda: (normal(64, seed=37),))
def relu_custom_jvp(x):
    return jax.nn.relu(x) * 2.0 + jax.nn.relu6(x)


@program("grad_relu_mlp", args=lambda: (normal(8, seed=38), normal(8, 8, seed=39)),
         note="jax.grad through jax.nn.relu's custom_jvp rule")
def grad_relu_mlp(x, w):
    return jax.grad(lambda x: jnp.sum(jax.nn.relu(w @ x) ** 2))(x)


@jax.custom_vjp
def clip_gradient(x):
    return x


def _clip_fwd(x):
    return x, None


def _clip_bwd(_, g):
    return (jnp.clip(g, -1.0, 1.0),)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


@program("custom_vjp_clip_gradient", args=lambda: (normal(16, seed=40, scale=3.0),),
         note="jax.custom_vjp primal and its gradient")
def custom_vjp_clip_gradient(x):
    value = jnp.sum(jnp.sin(clip_gradient(x)) * x)
    grad = jax.grad(lambda x: jnp.sum(clip_gradient(x) ** 3))(x)
    return value, grad


@program("checkpoint_grad", args=lambda: (normal(16, seed=41), normal(16, 16, seed=42, scale=0.25)),
         note="jax.checkpoint (remat) under jax.grad")
def checkpoint_grad(x, w):
    @jax.checkpoint
    def block(x):
        return jnp.sin(w @ x) * jnp.cos(x)

    return jax.grad(lambda x: jnp.sum(block(block(x))))(x)


@program("gelu_erf_and_tanh", args=lambda: (normal(4, 32, seed=43, scale=2.0),))
def gelu_erf_and_tanh(x):
    return jax.nn.gelu(x, approximate=False), jax.nn.gelu(x, approximate=True)


@program("silu_sigmoid_softplus", args=lambda: (normal(64, seed=44, scale=4.0),))
def silu_sigmoid_softplus(x):
    return jax.nn.silu(x), jax.nn.sigmoid(x), jax.nn.softplus(x), jax.nn.elu(x)


@program("dropout_random", args=lambda: (np.array([0, 42], np.uint32), normal(8, 16, seed=45)),
         note="jax.random.bernoulli (threefry) from a raw uint32[2] key")
def dropout_random(key, x):
    keep = jax.random.bernoulli(key, 0.75, x.shape)
    return jnp.where(keep, x / 0.75, 0.0)
