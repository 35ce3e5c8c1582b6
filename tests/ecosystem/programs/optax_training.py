"""Full training steps as users write them: a model's loss, value_and_grad,
an optax optimizer's update and apply_updates; optax losses and schedules."""

import flax.linen as nn
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import optax

from ecosystem import integers, normal, program

K = jax.random.PRNGKey


class Classifier(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(32)(x))
        x = nn.relu(nn.Dense(32)(x))
        return nn.Dense(5)(x)


def _clf_data():
    return normal(32, 10, seed=60), integers(32, seed=61, high=5)


def _train_args(opt):
    x, y = _clf_data()
    params = Classifier().init(K(0), x)
    return params, opt.init(params), x, y


def _make_step(opt):
    def step(params, opt_state, x, y):
        def loss_fn(p):
            logits = Classifier().apply(p, x)
            return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = opt.update(grads, opt_state, params)
        return loss, optax.apply_updates(params, updates), opt_state
    return step


_OPTS = {
    "sgd_momentum": (lambda: optax.sgd(0.1, momentum=0.9, nesterov=True), "sgd, Nesterov momentum"),
    "adam": (lambda: optax.adam(1e-3), "adam"),
    "adamw_cosine": (lambda: optax.adamw(optax.warmup_cosine_decay_schedule(0.0, 1e-3, 10, 100),
                                         weight_decay=1e-4),
                     "adamw with a warmup-cosine schedule (count in the state)"),
    "clip_chain": (lambda: optax.chain(optax.clip_by_global_norm(1.0), optax.scale_by_adam(),
                                       optax.scale(-1e-3)),
                   "chain: clip_by_global_norm, scale_by_adam, scale"),
    "lamb": (lambda: optax.lamb(1e-3), "lamb (trust ratio per layer)"),
    "lion": (lambda: optax.lion(1e-4), "lion (sign updates)"),
    "adafactor": (lambda: optax.adafactor(1e-2), "adafactor (factored second moments)"),
    "rmsprop": (lambda: optax.rmsprop(1e-3, momentum=0.9, centered=True), "centered rmsprop"),
    "adagrad": (lambda: optax.adagrad(1e-2), "adagrad"),
    "novograd": (lambda: optax.novograd(1e-3), "novograd"),
}


def _register_opt(tag, make, note):
    @program(f"optax_flax_train_{tag}", "optax", args=lambda: _train_args(make()),
             rtol=5e-4, atol=5e-5, note=f"flax MLP classifier, cross-entropy, {note}")
    def fn(params, opt_state, x, y):
        return _make_step(make())(params, opt_state, x, y)
    return fn


for _tag, (_make, _note) in _OPTS.items():
    _register_opt(_tag, _make, _note)


def _hk_net(x):
    return hk.nets.MLP([16, 16, 1])(x)


_HK = hk.without_apply_rng(hk.transform(_hk_net))


def _hk_args():
    x = normal(64, 3, seed=62)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)) ** 2
    params = _HK.init(K(1), x)
    return params, optax.adam(3e-3).init(params), x, y


@program("optax_haiku_regression_step", "optax", args=_hk_args, rtol=5e-4, atol=5e-5,
         note="haiku MLP regression, MSE, adam: the haiku training loop body")
def optax_haiku_regression_step(params, opt_state, x, y):
    def loss_fn(p):
        return jnp.mean(optax.l2_loss(_HK.apply(p, x), y))
    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = optax.adam(3e-3).update(grads, opt_state)
    return loss, optax.apply_updates(params, updates), opt_state


@program("optax_multi_steps_scan", "optax",
         args=lambda: _train_args(optax.sgd(0.05)), rtol=1e-3, atol=1e-4,
         note="ten sgd steps of the flax classifier inside lax.scan (a jitted epoch)")
def optax_multi_steps_scan(params, opt_state, x, y):
    step = _make_step(optax.sgd(0.05))

    def body(carry, _):
        p, s = carry
        loss, p, s = step(p, s, x, y)
        return (p, s), loss
    (params, opt_state), losses = jax.lax.scan(body, (params, opt_state), None, length=10)
    return params, losses


def _ema_args():
    x, y = _clf_data()
    params = Classifier().init(K(2), x)
    opt = optax.chain(optax.adam(1e-3), optax.ema(0.99))
    return params, opt.init(params), x, y


@program("optax_ema_accumulate", "optax", args=_ema_args, rtol=5e-4, atol=5e-5,
         note="adam followed by optax.ema of the updates (debiased)")
def optax_ema_accumulate(params, opt_state, x, y):
    opt = optax.chain(optax.adam(1e-3), optax.ema(0.99))
    return _make_step(opt)(params, opt_state, x, y)


@program("optax_losses_zoo", "optax",
         args=lambda: (normal(16, 6, seed=63), integers(16, seed=64, high=6),
                       (normal(16, 6, seed=65) > 0).astype(np.float32), normal(16, 6, seed=66)),
         note="cross-entropies, sigmoid BCE, huber, log_cosh, hinge, cosine distance, KL")
def optax_losses_zoo(logits, labels, targets, preds):
    onehot = jax.nn.one_hot(labels, 6)
    return dict(
        ce=optax.softmax_cross_entropy(logits, onehot),
        ce_smooth=optax.softmax_cross_entropy(logits, optax.smooth_labels(onehot, 0.1)),
        bce=optax.sigmoid_binary_cross_entropy(logits, targets),
        focal=optax.sigmoid_focal_loss(logits, targets),
        huber=optax.huber_loss(preds, logits),
        log_cosh=optax.log_cosh(preds, logits),
        hinge=optax.hinge_loss(logits, 2 * targets - 1),
        cos=optax.cosine_distance(preds, logits),
        kl=optax.kl_divergence(jax.nn.log_softmax(logits), jax.nn.softmax(preds)),
    )


@program("optax_schedules", "optax", args=lambda: (np.arange(0, 200, 7).astype(np.int32),),
         note="schedules evaluated at traced step counts: cosine, exponential, join, piecewise")
def optax_schedules(steps):
    scheds = [
        optax.cosine_decay_schedule(1.0, 100, alpha=0.1),
        optax.exponential_decay(1.0, 10, 0.9, staircase=True),
        optax.join_schedules([optax.linear_schedule(0.0, 1.0, 20),
                              optax.cosine_decay_schedule(1.0, 150)], [20]),
        optax.piecewise_constant_schedule(1.0, {50: 0.5, 120: 0.1}),
        optax.warmup_exponential_decay_schedule(0.0, 1.0, 10, 30, 0.5),
    ]
    return jnp.stack([jax.vmap(s)(steps) for s in scheds])


def _ctc_args():
    return (normal(2, 12, 6, seed=67), np.zeros((2, 12), np.float32),
            integers(2, 4, seed=68, low=1, high=6), np.zeros((2, 4), np.float32))


@program("optax_ctc_loss", "optax", args=_ctc_args, rtol=2e-4, atol=2e-5,
         note="optax.ctc_loss (a scan with logsumexp over label states)")
def optax_ctc_loss(logits, logit_pad, labels, label_pad):
    return optax.ctc_loss(logits, logit_pad, labels, label_pad)


def _lbfgs_args():
    return normal(20, 5, seed=69), normal(20, seed=70), np.zeros(5, np.float32)


@program("optax_lbfgs_linesearch", "optax", args=_lbfgs_args, rtol=1e-3, atol=1e-4,
         note="optax.lbfgs with its zoom linesearch, 5 iterations under fori_loop")
def optax_lbfgs_linesearch(a, b, w0):
    def f(w):
        return jnp.sum((a @ w - b) ** 2) + 0.1 * jnp.sum(w ** 2)
    opt = optax.lbfgs()
    value_and_grad = optax.value_and_grad_from_state(f)

    def body(_, carry):
        w, state = carry
        value, grad = value_and_grad(w, state=state)
        updates, state = opt.update(grad, state, w, value=value, grad=grad, value_fn=f)
        return optax.apply_updates(w, updates), state
    w, _ = jax.lax.fori_loop(0, 5, body, (w0, opt.init(w0)))
    return w, f(w)
