"""distrax (distributions, bijectors, normalizing flows) and chex (dataclass
states, assertions inside jitted code), as their users write them."""

import chex
import distrax
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np

from ecosystem import integers, key, normal, program, uniform

K = jax.random.PRNGKey

# ----- distrax ------------------------------------------------------------------


@program("distrax_log_probs", "distrax",
         args=lambda: (normal(12, seed=300), uniform(12, seed=301, low=0.05, high=0.95),
                       integers(12, seed=302, high=5)),
         rtol=2e-4, atol=2e-5,
         note="log_prob of Normal, Laplace, Logistic, Beta, Gamma, Categorical, Bernoulli")
def distrax_log_probs(x, u, k):
    return jnp.stack([
        distrax.Normal(0.3, 1.2).log_prob(x),
        distrax.Laplace(0.0, 0.8).log_prob(x),
        distrax.Logistic(0.1, 0.5).log_prob(x),
        distrax.Beta(2.0, 3.0).log_prob(u),
        distrax.Gamma(2.0, 1.5).log_prob(u),
        distrax.Categorical(logits=jnp.linspace(-1.0, 1.0, 5)).log_prob(k),
        distrax.Bernoulli(logits=x).log_prob(k % 2),
    ])


@program("distrax_mvn_entropy_kl", "distrax", args=lambda: (normal(4, seed=303), normal(4, seed=304)),
         rtol=2e-4, atol=2e-5, note="MultivariateNormalDiag/Tri: log_prob, entropy, KL divergence")
def distrax_mvn_entropy_kl(mu, x):
    p = distrax.MultivariateNormalDiag(mu, jnp.exp(0.1 * x))
    q = distrax.MultivariateNormalDiag(jnp.zeros(4), jnp.ones(4))
    tri = distrax.MultivariateNormalTri(mu, jnp.tril(jnp.ones((4, 4))) * 0.3 + jnp.eye(4))
    return p.log_prob(x), p.entropy(), p.kl_divergence(q), tri.log_prob(x)


@program("distrax_sample_and_log_prob", "distrax", args=lambda: (key(305), normal(3, seed=306)),
         rtol=2e-4, atol=2e-5, note="sample_and_log_prob of a Normal and a Categorical")
def distrax_sample_and_log_prob(rng, mu):
    k1, k2 = jax.random.split(rng)
    x, lp = distrax.Normal(mu, 0.5).sample_and_log_prob(seed=k1, sample_shape=(6,))
    c, lpc = distrax.Categorical(logits=mu).sample_and_log_prob(seed=k2, sample_shape=(6,))
    return x, lp, c, lpc


@program("distrax_tanh_transformed", "distrax", args=lambda: (normal(5, seed=307), normal(5, seed=308)),
         rtol=2e-4, atol=2e-5,
         note="a tanh-squashed Gaussian policy (SAC): Transformed(Normal, Block(Tanh))")
def distrax_tanh_transformed(mu, log_std):
    base = distrax.MultivariateNormalDiag(mu, jnp.exp(log_std))
    dist = distrax.Transformed(base, distrax.Block(distrax.Tanh(), 1))
    a = jnp.tanh(mu + 0.1)
    return dist.log_prob(a)


@program("distrax_bijector_chain", "distrax", args=lambda: (normal(6, seed=309),),
         rtol=2e-4, atol=2e-5,
         note="Chain of ScalarAffine, Sigmoid, Inverse; forward_and_log_det and inverse")
def distrax_bijector_chain(x):
    bij = distrax.Chain([distrax.ScalarAffine(shift=0.5, scale=2.0), distrax.Sigmoid(),
                         distrax.Inverse(distrax.ScalarAffine(shift=-1.0, scale=0.5))])
    y, ld = bij.forward_and_log_det(x)
    return y, ld, bij.inverse(y)


def _realnvp(x):
    dim = x.shape[-1]
    mask = jnp.arange(dim) % 2 == 0
    layers = []
    for i in range(4):
        def conditioner(z, i=i):
            h = hk.nets.MLP([16, 16], activate_final=True, name=f"cond{i}")(z)
            shift = hk.Linear(dim, w_init=jnp.zeros, name=f"shift{i}")(h)
            log_scale = hk.Linear(dim, w_init=hk.initializers.RandomNormal(0.01),
                                  name=f"scale{i}")(h)
            return shift, log_scale

        def bijector_fn(params):
            shift, log_scale = params
            return distrax.ScalarAffine(shift=shift, log_scale=jnp.tanh(log_scale))

        layers.append(distrax.MaskedCoupling(mask=mask, conditioner=conditioner,
                                             bijector=bijector_fn))
        mask = ~mask
    flow = distrax.Inverse(distrax.Chain(layers))
    base = distrax.MultivariateNormalDiag(jnp.zeros(dim), jnp.ones(dim))
    return distrax.Transformed(base, flow).log_prob(x)


_NVP = hk.without_apply_rng(hk.transform(_realnvp))


@program("distrax_realnvp_flow", "distrax",
         args=lambda: (_NVP.init(K(0), normal(16, 4, seed=310)), normal(16, 4, seed=310)),
         rtol=2e-4, atol=2e-5, note="RealNVP: 4 MaskedCoupling layers with haiku conditioners")
def distrax_realnvp_flow(params, x):
    return _NVP.apply(params, x)


@program("distrax_realnvp_grad", "distrax",
         args=lambda: (_NVP.init(K(1), normal(16, 4, seed=311)), normal(16, 4, seed=311)),
         rtol=1e-3, atol=1e-4, note="maximum-likelihood gradient of the RealNVP flow")
def distrax_realnvp_grad(params, x):
    return jax.grad(lambda p: -jnp.mean(_NVP.apply(p, x)))(params)


@program("distrax_mixture_same_family", "distrax", args=lambda: (normal(10, 2, seed=312),),
         rtol=2e-4, atol=2e-5, note="a Gaussian mixture: MixtureSameFamily of MultivariateNormalDiag")
def distrax_mixture_same_family(x):
    mix = distrax.MixtureSameFamily(
        mixture_distribution=distrax.Categorical(logits=jnp.array([0.1, 0.5, -0.3])),
        components_distribution=distrax.MultivariateNormalDiag(
            jnp.array([[0.0, 0.0], [2.0, 1.0], [-1.0, 2.0]]), jnp.array([[1.0, 1.0], [0.5, 0.7], [1.2, 0.4]])))
    return mix.log_prob(x)


@program("distrax_rational_quadratic_spline", "distrax", args=lambda: (uniform(20, seed=313, low=-2.5, high=2.5),
                                                                       normal(20, 3 * 4 + 1, seed=314)),
         rtol=5e-4, atol=5e-5, note="RationalQuadraticSpline bijector (neural spline flows): searchsorted")
def distrax_rational_quadratic_spline(x, params):
    bij = distrax.RationalQuadraticSpline(params, range_min=-3.0, range_max=3.0)
    return bij.forward_and_log_det(x)


# ----- chex ------------------------------------------------------------------------


@chex.dataclass
class TrainState:
    params: dict
    step: chex.Array
    rng: chex.PRNGKey


def _state_args():
    return TrainState(params={"w": normal(4, 3, seed=320), "b": np.zeros(3, np.float32)},
                      step=np.int32(3), rng=key(321)), normal(8, 4, seed=322)


@program("chex_dataclass_state", "chex", args=_state_args, rtol=2e-4, atol=2e-5,
         note="a @chex.dataclass training state passed in and replaced in the step")
def chex_dataclass_state(state, x):
    rng, sub = jax.random.split(state.rng)
    noise = 0.01 * jax.random.normal(sub, x.shape)
    grads = jax.grad(lambda p: jnp.mean(((x + noise) @ p["w"] + p["b"]) ** 2))(state.params)
    params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, state.params, grads)
    return state.replace(params=params, step=state.step + 1, rng=rng)


@program("chex_assertions_in_jit", "chex", args=lambda: (normal(5, 7, seed=323), normal(7, seed=324)),
         note="chex.assert_shape / assert_rank / assert_type / assert_equal_shape inside a jit")
def chex_assertions_in_jit(a, b):
    chex.assert_rank(a, 2)
    chex.assert_shape(b, (a.shape[1],))
    chex.assert_type([a, b], float)
    out = a @ b
    chex.assert_equal_shape([out, a[:, 0]])
    return out


@program("chex_tree_assertions", "chex",
         args=lambda: ({"a": normal(4, 3, seed=325), "b": [normal(4, seed=326), normal(4, 2, seed=327)]},),
         note="tree assertions (equal structs, shape prefix, axis dimension) around a tree_map")
def chex_tree_assertions(tree):
    chex.assert_tree_shape_prefix(tree, (4,))
    chex.assert_axis_dimension(tree["a"], 1, 3)
    out = jax.tree_util.tree_map(lambda x: jnp.cumsum(x, axis=0) * 0.5, tree)
    chex.assert_trees_all_equal_structs(out, tree)
    chex.assert_trees_all_equal_shapes_and_dtypes(out, tree)
    return out


@program("chex_dimensions", "chex", args=lambda: (normal(3, 4, seed=326), normal(4, 5, seed=327)),
         note="chex.Dimensions to check named shapes of a matmul")
def chex_dimensions(a, b):
    dims = chex.Dimensions(B=3, D=4, H=5)
    chex.assert_shape(a, dims["BD"])
    chex.assert_shape(b, dims["DH"])
    out = jnp.tanh(a @ b)
    chex.assert_shape(out, dims["BH"])
    return out
