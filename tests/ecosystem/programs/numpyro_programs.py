"""numpyro as its users write it: models, their log densities and potential
energies (and gradients), one HMC and one NUTS transition, SVI steps,
distributions' log_prob and samples, constraint transforms, handlers."""

import functools
# The cached set-ups below (initialize_model, hmc, SVI.init) run in the
# programs' argument builders, outside of any trace, never first inside one.

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro import handlers
from numpyro.contrib.control_flow import scan as npy_scan
from numpyro.distributions import constraints
from numpyro.infer import SVI, Predictive, Trace_ELBO
from numpyro.infer.autoguide import AutoNormal
from numpyro.infer.hmc import hmc
from numpyro.infer.util import initialize_model, log_density

from ecosystem import integers, key, normal, program, uniform

K = jax.random.PRNGKey


def linreg(x, y=None):
    w = numpyro.sample("w", dist.Normal(0.0, 1.0).expand([x.shape[1]]).to_event(1))
    b = numpyro.sample("b", dist.Normal(0.0, 5.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1.0))
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("y", dist.Normal(x @ w + b, sigma), obs=y)


def _linreg_data():
    x = normal(50, 3, seed=80)
    y = x @ np.array([1.0, -0.5, 2.0], np.float32) + 0.3 + 0.2 * normal(50, seed=81)
    return x, y


@program("numpyro_linreg_log_density", "numpyro",
         args=lambda: _linreg_data() + ({"w": normal(3, seed=82), "b": np.float32(0.2),
                                         "sigma": np.float32(0.7)},), rtol=2e-4, atol=2e-5,
         note="numpyro.infer.util.log_density of a Bayesian linear regression")
def numpyro_linreg_log_density(x, y, params):
    ld, _ = log_density(linreg, (x, y), {}, params)
    return ld


def logistic(x, y=None):
    w = numpyro.sample("w", dist.Normal(jnp.zeros(x.shape[1]), 1.0).to_event(1))
    b = numpyro.sample("b", dist.Normal(0.0, 1.0))
    with numpyro.plate("n", x.shape[0]):
        numpyro.sample("y", dist.Bernoulli(logits=x @ w + b), obs=y)


def _logistic_data():
    x = normal(60, 4, seed=83)
    y = (x @ np.array([1.0, -1.0, 0.5, 0.0], np.float32) + 0.3 * normal(60, seed=84) > 0)
    return x, y.astype(np.float32)


@functools.cache
def _logistic_model():
    x, y = _logistic_data()
    info = initialize_model(K(0), logistic, model_args=(x, y))
    return info


@program("numpyro_logistic_potential_grad", "numpyro",
         args=lambda: (_logistic_model() and {"w": normal(4, seed=85, scale=0.5),
                                              "b": np.float32(0.1)},),
         rtol=2e-4, atol=2e-5,
         note="potential energy from initialize_model and its gradient (what HMC evaluates)")
def numpyro_logistic_potential_grad(z):
    pe = _logistic_model().potential_fn
    return jax.value_and_grad(pe)(z)


J = 8
Y8 = np.array([28, 8, -3, 7, -1, 1, 18, 12], np.float32)
S8 = np.array([15, 10, 16, 11, 9, 11, 10, 18], np.float32)


def eight_schools(sigma, y=None):
    mu = numpyro.sample("mu", dist.Normal(0, 5))
    tau = numpyro.sample("tau", dist.HalfCauchy(5))
    with numpyro.plate("J", J):
        theta_raw = numpyro.sample("theta_raw", dist.Normal(0, 1))
        theta = numpyro.deterministic("theta", mu + tau * theta_raw)
        numpyro.sample("obs", dist.Normal(theta, sigma), obs=y)


@functools.cache
def _eight_schools():
    return initialize_model(K(1), eight_schools, model_args=(S8, Y8))


@program("numpyro_eight_schools_potential", "numpyro",
         args=lambda: (_eight_schools() and {"mu": np.float32(4.0), "tau": np.float32(0.5),
                                             "theta_raw": normal(J, seed=86)},), rtol=2e-4, atol=2e-5,
         note="non-centred eight schools: unconstrained potential (log-transformed tau) and grad")
def numpyro_eight_schools_potential(z):
    return jax.value_and_grad(_eight_schools().potential_fn)(z)


@functools.cache
def _hmc_kernel(algo):
    info = _eight_schools()
    init_kernel, sample_kernel = hmc(info.potential_fn, algo=algo)
    state = init_kernel(info.param_info, num_warmup=0, step_size=0.2,
                        rng_key=K(2), trajectory_length=1.0)
    return sample_kernel, state


@program("numpyro_hmc_step", "numpyro", args=lambda: (_hmc_kernel("HMC")[1],),
         rtol=1e-3, atol=1e-4,
         note="one HMC transition of eight schools (leapfrog fori_loop, MH accept)")
def numpyro_hmc_step(state):
    return _hmc_kernel("HMC")[0](state)


@program("numpyro_nuts_step", "numpyro", args=lambda: (_hmc_kernel("NUTS")[1],),
         rtol=1e-3, atol=1e-4,
         note="one NUTS transition of eight schools (iterative tree building, while loops)")
def numpyro_nuts_step(state):
    return _hmc_kernel("NUTS")[0](state)


@program("numpyro_distributions_log_prob", "numpyro",
         args=lambda: (uniform(10, seed=87, low=0.1, high=0.9), normal(10, seed=88),
                       integers(10, seed=89, high=6)),
         note="log_prob of Normal, Gamma, Beta, StudentT, Laplace, Poisson, Binomial, "
              "Categorical, LogNormal, Exponential")
def numpyro_distributions_log_prob(u, x, k):
    kf = k.astype(jnp.float32)
    return jnp.stack([
        dist.Normal(0.5, 2.0).log_prob(x),
        dist.Gamma(2.0, 3.0).log_prob(u),
        dist.Beta(2.0, 5.0).log_prob(u),
        dist.StudentT(4.0, 0.0, 1.5).log_prob(x),
        dist.Laplace(0.1, 0.7).log_prob(x),
        dist.Poisson(2.5).log_prob(kf),
        dist.Binomial(6, probs=0.3).log_prob(kf),
        dist.Categorical(logits=jnp.arange(6.0) / 3).log_prob(k),
        dist.LogNormal(0.0, 0.5).log_prob(u),
        dist.Exponential(1.5).log_prob(u),
    ])


@program("numpyro_multivariate_log_prob", "numpyro",
         args=lambda: (normal(5, 4, seed=90), np.float32(2.0)), rtol=5e-4, atol=5e-5,
         note="MultivariateNormal (Cholesky), Dirichlet, LKJCholesky, Wishart-free MVN scale_tril")
def numpyro_multivariate_log_prob(x, conc):
    cov = jnp.eye(4) + 0.3 * jnp.ones((4, 4))
    mvn = dist.MultivariateNormal(jnp.zeros(4), covariance_matrix=cov).log_prob(x)
    p = jax.nn.softmax(x, axis=-1)
    dir_ = dist.Dirichlet(jnp.full(4, conc)).log_prob(p)
    lkj = dist.LKJCholesky(3, conc).log_prob(jnp.linalg.cholesky(
        jnp.array([[1.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.0]])))
    return mvn, dir_, lkj


@program("numpyro_sample_normal_gamma", "numpyro", args=lambda: (key(91),),
         rtol=1e-4, atol=1e-5,
         note="samples from Normal, Gamma (random_gamma), Dirichlet, Beta with a raw key")
def numpyro_sample_normal_gamma(rng):
    k1, k2, k3, k4 = jax.random.split(rng, 4)
    return (dist.Normal(1.0, 2.0).sample(k1, (5,)), dist.Gamma(2.5, 1.0).sample(k2, (5,)),
            dist.Dirichlet(jnp.array([1.0, 2.0, 3.0])).sample(k3, (4,)),
            dist.Beta(2.0, 3.0).sample(k4, (5,)))


@program("numpyro_constraint_transforms", "numpyro",
         args=lambda: (normal(6, seed=92), normal(3, seed=93)), rtol=2e-4, atol=2e-5,
         note="biject_to(positive/simplex/interval/corr_cholesky) with log|det J|")
def numpyro_constraint_transforms(x, y):
    out = []
    for c, v in ((constraints.positive, x), (constraints.simplex, x),
                 (constraints.interval(-1.0, 3.0), x), (constraints.corr_cholesky, y)):
        t = dist.transforms.biject_to(c)
        z = t(v)
        out.append((z, t.log_abs_det_jacobian(v, z)))
    return out


def ar1(y):
    phi = numpyro.sample("phi", dist.Uniform(-1, 1))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1.0))

    def transition(prev, yt):
        numpyro.sample("y", dist.Normal(phi * prev, sigma), obs=yt)
        return yt, None

    npy_scan(transition, y[0], y[1:])


@program("numpyro_ar1_scan_log_density", "numpyro",
         args=lambda: (normal(30, seed=94), {"phi": np.float32(0.4), "sigma": np.float32(0.8)}),
         rtol=2e-4, atol=2e-5, note="AR(1) with numpyro.contrib.control_flow.scan")
def numpyro_ar1_scan_log_density(y, params):
    return log_density(ar1, (y,), {}, params)[0]


@program("numpyro_gaussian_random_walk_mixture", "numpyro",
         args=lambda: (normal(20, seed=95).cumsum().astype(np.float32), normal(12, seed=96)),
         rtol=2e-4, atol=2e-5, note="GaussianRandomWalk and MixtureSameFamily log_prob")
def numpyro_gaussian_random_walk_mixture(walk, x):
    grw = dist.GaussianRandomWalk(scale=1.3, num_steps=20).log_prob(walk)
    mix = dist.MixtureSameFamily(dist.Categorical(probs=jnp.array([0.3, 0.5, 0.2])),
                                 dist.Normal(jnp.array([-2.0, 0.0, 3.0]), jnp.array([1.0, 0.5, 2.0])))
    return grw, mix.log_prob(x)


@program("numpyro_handlers_trace", "numpyro", args=lambda: (key(97),) + _linreg_data(),
         rtol=2e-4, atol=2e-5,
         note="handlers.seed + handlers.trace of a model; sum of the sites' log_prob")
def numpyro_handlers_trace(rng, x, y):
    tr = handlers.trace(handlers.seed(linreg, rng)).get_trace(x, y)
    return sum(site["fn"].log_prob(site["value"]).sum() for site in tr.values()
               if site["type"] == "sample"), tr["w"]["value"]


@program("numpyro_predictive", "numpyro",
         args=lambda: (key(98), normal(10, 3, seed=99),
                       {"w": normal(7, 3, seed=100), "b": normal(7, seed=101),
                        "sigma": uniform(7, seed=102, low=0.5, high=1.0)}),
         note="Predictive from 7 posterior samples (vmapped seeded model)")
def numpyro_predictive(rng, x, samples):
    return Predictive(linreg, posterior_samples=samples)(rng, x)["y"]


@functools.cache
def _svi():
    x, y = _linreg_data()
    guide = AutoNormal(linreg)
    svi = SVI(linreg, guide, numpyro.optim.Adam(1e-2), Trace_ELBO())
    state = svi.init(K(3), x, y)
    return svi, state


@program("numpyro_svi_step", "numpyro", args=lambda: (_svi()[1],) + _linreg_data(),
         rtol=5e-4, atol=5e-5, note="one SVI step: AutoNormal guide, Trace_ELBO, Adam")
def numpyro_svi_step(state, x, y):
    return _svi()[0].update(state, x, y)
