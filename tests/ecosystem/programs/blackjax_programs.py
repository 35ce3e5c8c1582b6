"""blackjax as its users write it: build a kernel from a log density, init a
state outside, and jit ``kernel.step(rng_key, state)`` (or a few steps under
lax.scan, the usual inference loop)."""

import blackjax
import jax
import jax.numpy as jnp
import jax.scipy.stats as stats
import numpy as np
import optax

from ecosystem import key, normal, program

X = normal(40, 3, seed=120)
Y = (X @ np.array([0.5, -1.0, 2.0], np.float32) + 0.5 * normal(40, seed=121)).astype(np.float32)


def logdensity(params):
    """Bayesian linear regression: Normal priors, HalfNormal noise in log space."""
    w, log_sigma = params["w"], params["log_sigma"]
    prior = stats.norm.logpdf(w, 0.0, 1.0).sum() + stats.norm.logpdf(log_sigma, 0.0, 1.0)
    lik = stats.norm.logpdf(Y, X @ w, jnp.exp(log_sigma)).sum()
    return prior + lik


def banana(x):
    return -0.5 * (x[0] ** 2 / 4.0 + (x[1] - 0.5 * x[0] ** 2 + 1.0) ** 2) - 0.5 * jnp.sum(x[2:] ** 2)


POS = {"w": np.array([0.4, -0.8, 1.9], np.float32), "log_sigma": np.float32(-0.6)}


def _init(alg, pos=POS, *extra):
    return alg.init(pos, *extra)


_HMC = blackjax.hmc(logdensity, step_size=0.05, inverse_mass_matrix=jnp.ones(4),
                    num_integration_steps=10)


@program("blackjax_hmc_step", "blackjax", args=lambda: (key(122), _init(_HMC)),
         rtol=1e-3, atol=1e-4, note="one HMC step (10 velocity-Verlet steps, MH accept)")
def blackjax_hmc_step(rng, state):
    return _HMC.step(rng, state)


_NUTS = blackjax.nuts(logdensity, step_size=0.05, inverse_mass_matrix=jnp.ones(4))


@program("blackjax_nuts_step", "blackjax", args=lambda: (key(123), _init(_NUTS)),
         rtol=1e-3, atol=1e-4, note="one NUTS step (dynamic multinomial tree, while loops)")
def blackjax_nuts_step(rng, state):
    return _NUTS.step(rng, state)


@program("blackjax_nuts_scan_chain", "blackjax", args=lambda: (key(124), _init(_NUTS)),
         rtol=2e-3, atol=2e-4, note="the inference loop: 8 NUTS steps under lax.scan")
def blackjax_nuts_scan_chain(rng, state):
    def one(state, k):
        state, info = _NUTS.step(k, state)
        return state, (state.position, info.acceptance_rate)
    return jax.lax.scan(one, state, jax.random.split(rng, 8))


_MALA = blackjax.mala(banana, step_size=0.1)


@program("blackjax_mala_step", "blackjax",
         args=lambda: (key(125), _MALA.init(np.array([0.3, -0.2, 0.1, 0.5], np.float32))),
         note="one MALA step on a banana density")
def blackjax_mala_step(rng, state):
    return _MALA.step(rng, state)


_RMH = blackjax.additive_step_random_walk(banana, blackjax.mcmc.random_walk.normal(0.5 * jnp.ones(4)))


@program("blackjax_random_walk_scan", "blackjax",
         args=lambda: (key(126), _RMH.init(np.array([0.3, -0.2, 0.1, 0.5], np.float32))),
         note="20 Gaussian random-walk Metropolis steps under lax.scan")
def blackjax_random_walk_scan(rng, state):
    def one(s, k):
        s, info = _RMH.step(k, s)
        return s, info.is_accepted
    return jax.lax.scan(one, state, jax.random.split(rng, 20))


def _logprior(w):
    return stats.norm.logpdf(w, 0.0, 1.0).sum()


def _loglik(w, batch):
    x, y = batch
    return stats.norm.logpdf(y, x @ w, 0.5).sum()


_SGLD = blackjax.sgld(blackjax.sgmcmc.gradients.grad_estimator(_logprior, _loglik, 40))


@program("blackjax_sgld_step", "blackjax",
         args=lambda: (key(127), _SGLD.init(np.zeros(3, np.float32)), (X[:10], Y[:10])),
         note="one stochastic-gradient Langevin step on a minibatch")
def blackjax_sgld_step(rng, position, batch):
    return _SGLD.step(rng, position, batch, 1e-3)


_ESS = blackjax.elliptical_slice(lambda f: stats.norm.logpdf(Y[:8], f, 0.3).sum(),
                                 mean=jnp.zeros(8),
                                 cov=jnp.exp(-0.5 * (jnp.arange(8.0)[:, None] - jnp.arange(8.0)) ** 2)
                                 + 1e-3 * jnp.eye(8))


@program("blackjax_elliptical_slice_step", "blackjax",
         args=lambda: (key(128), _ESS.init(np.zeros(8, np.float32))), rtol=2e-4, atol=2e-5,
         note="elliptical slice sampling with a GP prior (Cholesky of the covariance)")
def blackjax_elliptical_slice_step(rng, state):
    return _ESS.step(rng, state)


_MFVI = blackjax.meanfield_vi(logdensity, optax.adam(1e-2), num_samples=8)


@program("blackjax_meanfield_vi_step", "blackjax", args=lambda: (key(129), _MFVI.init(POS)),
         rtol=5e-4, atol=5e-5, note="one mean-field VI step (sampled ELBO gradient, adam)")
def blackjax_meanfield_vi_step(rng, state):
    return _MFVI.step(rng, state)


_MCLMC = blackjax.mclmc(banana, L=1.0, step_size=0.2)


@program("blackjax_mclmc_step", "blackjax",
         args=lambda: (key(130), blackjax.mcmc.mclmc.init(
             np.array([0.3, -0.2, 0.1, 0.5], np.float32), banana, jax.random.PRNGKey(131))),
         rtol=2e-4, atol=2e-5, note="one microcanonical Langevin step (isokinetic McLachlan)")
def blackjax_mclmc_step(rng, state):
    return _MCLMC.step(rng, state)


_BARKER = blackjax.barker_proposal(banana, step_size=0.3)


@program("blackjax_barker_step", "blackjax",
         args=lambda: (key(132), _BARKER.init(np.array([0.3, -0.2, 0.1, 0.5], np.float32))),
         note="one Barker proposal step")
def blackjax_barker_step(rng, state):
    return _BARKER.step(rng, state)
