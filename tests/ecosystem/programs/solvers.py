"""Solvers as their users write them: optimistix (root finding, least
squares, minimisation, fixed points), jaxopt (LBFGS, gradient descent,
Gauss-Newton, bisection, projected gradient, implicit differentiation),
lineax (linear solves with several solvers) and diffrax (ODEs with adaptive
steps, stiff solvers, an SDE, gradients through a solve)."""

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import jaxopt
import lineax as lx
import numpy as np
import optimistix as optx

from ecosystem import key, normal, program, spd, uniform

# ----- optimistix -----------------------------------------------------------


def _root_fn(y, args):
    a, b = args
    return jnp.tanh(a @ y) + y - b


@program("optimistix_newton_root", "optimistix",
         args=lambda: (0.3 * normal(4, 4, seed=240), normal(4, seed=241)), rtol=2e-4, atol=2e-5,
         note="optx.root_find with optx.Newton (Jacobian by jacfwd, LU solve via lineax)")
def optimistix_newton_root(a, b):
    sol = optx.root_find(_root_fn, optx.Newton(rtol=1e-6, atol=1e-6), jnp.zeros(4), args=(a, b),
                         throw=False)
    return sol.value, sol.result._value


@program("optimistix_newton_root_throw", "optimistix",
         args=lambda: (0.3 * normal(4, 4, seed=242), normal(4, seed=243)), rtol=2e-4, atol=2e-5,
         note="the same with the default throw=True (equinox's error checks)")
def optimistix_newton_root_throw(a, b):
    return optx.root_find(_root_fn, optx.Newton(rtol=1e-6, atol=1e-6), jnp.zeros(4),
                          args=(a, b)).value


def _exp_decay_resid(p, args):
    t, y = args
    return p[0] * jnp.exp(-p[1] * t) + p[2] - y


def _decay_data():
    t = np.linspace(0, 4, 30).astype(np.float32)
    y = (2.0 * np.exp(-1.3 * t) + 0.5 + 0.02 * normal(30, seed=244)).astype(np.float32)
    return t, y


@program("optimistix_levenberg_marquardt", "optimistix", args=_decay_data, rtol=1e-3, atol=1e-4,
         note="optx.least_squares with LevenbergMarquardt: fit of an exponential decay")
def optimistix_levenberg_marquardt(t, y):
    sol = optx.least_squares(_exp_decay_resid, optx.LevenbergMarquardt(rtol=1e-6, atol=1e-6),
                             jnp.array([1.0, 1.0, 0.0]), args=(t, y), throw=False)
    return sol.value


@program("optimistix_bfgs_rosenbrock", "optimistix", args=lambda: (np.array([-1.2, 1.0, 0.5], np.float32),),
         rtol=1e-3, atol=1e-4,
         note="optx.minimise with BFGS on a 3-D Rosenbrock function. Not its step count: "
              "a 1-ulp difference after ~20 steps (rounding) grows along the valley, "
              "both converge to (1, 1, 1) but in 71 or 76 steps")
def optimistix_bfgs_rosenbrock(y0):
    def rosen(y, args):
        return jnp.sum(100.0 * (y[1:] - y[:-1] ** 2) ** 2 + (1 - y[:-1]) ** 2)
    sol = optx.minimise(rosen, optx.BFGS(rtol=1e-6, atol=1e-6), y0, max_steps=200, throw=False)
    return sol.value, sol.result == optx.RESULTS.successful


@program("optimistix_fixed_point", "optimistix", args=lambda: (uniform(5, seed=245),),
         rtol=2e-4, atol=2e-5, note="optx.fixed_point (FixedPointIteration) of y = cos(a*y)")
def optimistix_fixed_point(a):
    sol = optx.fixed_point(lambda y, a: jnp.cos(a * y), optx.FixedPointIteration(rtol=1e-6, atol=1e-6),
                           jnp.zeros(5), args=a, throw=False)
    return sol.value


@program("optimistix_dogleg_implicit_grad", "optimistix", args=_decay_data, rtol=2e-3, atol=2e-4,
         note="gradient of a fitted parameter w.r.t. the data (implicit differentiation), Dogleg")
def optimistix_dogleg_implicit_grad(t, y):
    def fitted(y):
        return optx.least_squares(_exp_decay_resid, optx.Dogleg(rtol=1e-6, atol=1e-6),
                                  jnp.array([1.0, 1.0, 0.0]), args=(t, y), throw=False).value[1]
    return jax.grad(fitted)(y)


# ----- jaxopt -----------------------------------------------------------------


def _ridge_data():
    return normal(40, 6, seed=250), normal(40, seed=251)


def _ridge(w, x, y):
    return jnp.mean((x @ w - y) ** 2) + 0.1 * jnp.sum(w ** 2)


@program("jaxopt_lbfgs_ridge", "jaxopt", args=_ridge_data, rtol=1e-3, atol=1e-4,
         note="jaxopt.LBFGS.run on ridge regression (zoom linesearch, while_loop)")
def jaxopt_lbfgs_ridge(x, y):
    return jaxopt.LBFGS(fun=_ridge, maxiter=50).run(jnp.zeros(6), x, y).params


@program("jaxopt_gradient_descent", "jaxopt", args=_ridge_data, rtol=1e-3, atol=1e-4,
         note="jaxopt.GradientDescent with acceleration, fixed 40 iterations")
def jaxopt_gradient_descent(x, y):
    solver = jaxopt.GradientDescent(fun=_ridge, maxiter=40, stepsize=0.05, acceleration=True)
    return solver.run(jnp.zeros(6), x, y).params


@program("jaxopt_logreg_implicit_grad", "jaxopt",
         args=lambda: (normal(50, 4, seed=252), (normal(50, seed=253) > 0).astype(np.int32)),
         rtol=2e-3, atol=2e-4,
         note="d(solution)/d(lambda) through jaxopt.LBFGS by implicit differentiation")
def jaxopt_logreg_implicit_grad(x, y):
    def loss(w, lam):
        logits = x @ w
        return jnp.mean(jaxopt.loss.binary_logistic_loss(y, logits)) + lam * jnp.sum(w ** 2)

    def solve(lam):
        return jaxopt.LBFGS(fun=loss, maxiter=100, tol=1e-6).run(jnp.zeros(4), lam).params
    return jax.jacobian(solve)(0.1)


@program("jaxopt_gauss_newton", "jaxopt", args=_decay_data, rtol=1e-3, atol=1e-4,
         note="jaxopt.GaussNewton on the exponential-decay fit")
def jaxopt_gauss_newton(t, y):
    return jaxopt.GaussNewton(residual_fun=lambda p, t, y: _exp_decay_resid(p, (t, y)),
                              maxiter=30).run(jnp.array([1.0, 1.0, 0.0]), t, y).params


@program("jaxopt_bisection", "jaxopt", args=lambda: (uniform(1, seed=254, low=1.0, high=3.0)[0],),
         rtol=1e-4, atol=1e-5, note="jaxopt.Bisection root of x^3 - c")
def jaxopt_bisection(c):
    return jaxopt.Bisection(lambda x, c: x ** 3 - c, lower=0.0, upper=3.0, tol=1e-6,
                            check_bracket=False).run(c=c).params


@program("jaxopt_projected_gradient_simplex", "jaxopt", args=lambda: (normal(8, seed=255),),
         rtol=1e-3, atol=1e-4,
         note="ProjectedGradient with projection_simplex (sort, cumsum, where)")
def jaxopt_projected_gradient_simplex(target):
    pg = jaxopt.ProjectedGradient(fun=lambda w, t: jnp.sum((w - t) ** 2),
                                  projection=jaxopt.projection.projection_simplex, maxiter=50)
    return pg.run(jnp.ones(8) / 8, t=target).params


@program("jaxopt_osqp_box_qp", "jaxopt", args=lambda: (spd(4, seed=256), normal(4, seed=257)),
         rtol=2e-3, atol=2e-4, note="a box-constrained QP with jaxopt.BoxOSQP")
def jaxopt_osqp_box_qp(Q, c):
    A = jnp.eye(4)
    qp = jaxopt.BoxOSQP(tol=1e-5, maxiter=200)
    sol = qp.run(params_obj=(Q, c), params_eq=A, params_ineq=(-jnp.ones(4), jnp.ones(4)))
    return sol.params.primal[0]


# ----- lineax -----------------------------------------------------------------


def _lin_args(n=6, seed=260):
    return spd(n, seed=seed), normal(n, seed=seed + 1)


@program("lineax_lu_solve", "lineax", args=lambda: (normal(6, 6, seed=262) + 3 * np.eye(6, dtype=np.float32),
                                                   normal(6, seed=263)),
         rtol=2e-4, atol=2e-5, note="lx.linear_solve with lx.LU on a MatrixLinearOperator")
def lineax_lu_solve(a, b):
    return lx.linear_solve(lx.MatrixLinearOperator(a), b, lx.LU()).value


@program("lineax_cholesky_psd", "lineax", args=_lin_args, rtol=2e-4, atol=2e-5,
         note="lx.Cholesky with a positive_semidefinite_tag operator")
def lineax_cholesky_psd(a, b):
    op = lx.MatrixLinearOperator(a, lx.positive_semidefinite_tag)
    return lx.linear_solve(op, b, lx.Cholesky()).value


@program("lineax_cg_function_operator", "lineax", args=_lin_args, rtol=1e-3, atol=1e-4,
         note="lx.CG on a FunctionLinearOperator (matrix-free), while_loop")
def lineax_cg_function_operator(a, b):
    op = lx.FunctionLinearOperator(lambda v: a @ v, jax.ShapeDtypeStruct((6,), jnp.float32),
                                   lx.positive_semidefinite_tag)
    return lx.linear_solve(op, b, lx.CG(rtol=1e-6, atol=1e-6, max_steps=50)).value


@program("lineax_qr_least_squares", "lineax", args=lambda: (normal(10, 4, seed=264), normal(10, seed=265)),
         rtol=2e-4, atol=2e-5, note="lx.QR least squares of a tall system")
def lineax_qr_least_squares(a, b):
    return lx.linear_solve(lx.MatrixLinearOperator(a), b, lx.QR()).value


@program("lineax_svd_pinv", "lineax", args=lambda: (normal(5, 7, seed=266), normal(5, seed=267)),
         rtol=2e-4, atol=2e-5, note="lx.SVD minimum-norm solve of a wide system")
def lineax_svd_pinv(a, b):
    return lx.linear_solve(lx.MatrixLinearOperator(a), b, lx.SVD()).value


@program("lineax_gmres", "lineax", args=lambda: (normal(6, 6, seed=268) + 4 * np.eye(6, dtype=np.float32),
                                                normal(6, seed=269)),
         rtol=1e-3, atol=1e-4, note="lx.GMRES, restarts in a while_loop")
def lineax_gmres(a, b):
    return lx.linear_solve(lx.MatrixLinearOperator(a), b,
                           lx.GMRES(rtol=1e-6, atol=1e-6, restart=6, max_steps=50)).value


@program("lineax_triangular_diagonal", "lineax", args=lambda: (normal(5, 5, seed=270), normal(5, seed=271)),
         rtol=2e-4, atol=2e-5, note="lx.Triangular on a lower-triangular operator, lx.Diagonal")
def lineax_triangular_diagonal(a, b):
    low = jnp.tril(a) + 3 * jnp.eye(5)
    x1 = lx.linear_solve(lx.MatrixLinearOperator(low, lx.lower_triangular_tag), b,
                         lx.Triangular()).value
    x2 = lx.linear_solve(lx.DiagonalLinearOperator(jnp.diag(low)), b, lx.Diagonal()).value
    return x1, x2


@program("lineax_autolinear_solve_grad", "lineax", args=_lin_args, rtol=1e-3, atol=1e-4,
         note="gradient of a loss through lx.linear_solve (AutoLinearSolver, custom_linear_solve)")
def lineax_autolinear_solve_grad(a, b):
    def loss(a):
        x = lx.linear_solve(lx.MatrixLinearOperator(a), b).value
        return jnp.sum(x ** 2)
    return jax.grad(loss)(a)


# ----- diffrax ----------------------------------------------------------------


def _lotka(t, y, args):
    a, b, c, d = args
    return jnp.stack([a * y[0] - b * y[0] * y[1], d * y[0] * y[1] - c * y[1]])


def _lv_args():
    return np.array([10.0, 5.0], np.float32), np.array([1.1, 0.4, 0.4, 0.1], np.float32)


@program("diffrax_tsit5_adaptive", "diffrax", args=_lv_args, rtol=2e-3, atol=2e-3,
         note="Lotka-Volterra with Tsit5 and a PIDController, saved at 11 times (throw=False)")
def diffrax_tsit5_adaptive(y0, params):
    sol = diffrax.diffeqsolve(diffrax.ODETerm(_lotka), diffrax.Tsit5(), t0=0.0, t1=10.0, dt0=0.1,
                              y0=y0, args=params,
                              stepsize_controller=diffrax.PIDController(rtol=1e-5, atol=1e-5),
                              saveat=diffrax.SaveAt(ts=jnp.linspace(0.0, 10.0, 11)),
                              max_steps=4096, throw=False)
    return sol.ys


@program("diffrax_dopri5_default_throw", "diffrax", args=_lv_args, rtol=2e-3, atol=2e-3,
         note="Dopri5 adaptive with diffrax's defaults (throw=True: runtime error checks)")
def diffrax_dopri5_default_throw(y0, params):
    sol = diffrax.diffeqsolve(diffrax.ODETerm(_lotka), diffrax.Dopri5(), t0=0.0, t1=5.0, dt0=0.1,
                              y0=y0, args=params,
                              stepsize_controller=diffrax.PIDController(rtol=1e-5, atol=1e-5))
    return sol.ys


def _robertson(t, y, args):
    k1, k2, k3 = 0.04, 3e7, 1e4
    return jnp.stack([-k1 * y[0] + k3 * y[1] * y[2],
                      k1 * y[0] - k2 * y[1] ** 2 - k3 * y[1] * y[2],
                      k2 * y[1] ** 2])


@program("diffrax_kvaerno5_stiff", "diffrax", args=lambda: (np.array([1.0, 0.0, 0.0], np.float32),),
         rtol=5e-3, atol=5e-3, note="Robertson's stiff system, Kvaerno5 (implicit, Newton + LU)")
def diffrax_kvaerno5_stiff(y0):
    sol = diffrax.diffeqsolve(diffrax.ODETerm(_robertson), diffrax.Kvaerno5(), t0=0.0, t1=10.0,
                              dt0=1e-4, y0=y0,
                              stepsize_controller=diffrax.PIDController(rtol=1e-4, atol=1e-6),
                              max_steps=2000, throw=False)
    return sol.ys[-1]


@program("diffrax_heun_fixed_grad", "diffrax", args=_lv_args, rtol=2e-3, atol=2e-3,
         note="gradient of a loss w.r.t. parameters through a fixed-step Heun solve")
def diffrax_heun_fixed_grad(y0, params):
    def loss(p):
        sol = diffrax.diffeqsolve(diffrax.ODETerm(_lotka), diffrax.Heun(), 0.0, 2.0, 0.05, y0, args=p,
                                  saveat=diffrax.SaveAt(t1=True), throw=False)
        return jnp.sum(sol.ys ** 2)
    return jax.grad(loss)(params)


@program("diffrax_sde_euler_maruyama", "diffrax", args=lambda: (key(280), np.array([1.0, 0.5], np.float32)),
         rtol=1e-3, atol=1e-4,
         note="an Ornstein-Uhlenbeck SDE: Euler-Maruyama with a VirtualBrownianTree")
def diffrax_sde_euler_maruyama(rng, y0):
    drift = lambda t, y, args: -0.7 * y
    diffusion = lambda t, y, args: 0.3 * jnp.eye(2)
    bm = diffrax.VirtualBrownianTree(0.0, 1.0, tol=1e-3, shape=(2,), key=rng)
    terms = diffrax.MultiTerm(diffrax.ODETerm(drift), diffrax.ControlTerm(diffusion, bm))
    sol = diffrax.diffeqsolve(terms, diffrax.Euler(), 0.0, 1.0, dt0=0.05, y0=y0,
                              saveat=diffrax.SaveAt(ts=jnp.linspace(0.0, 1.0, 5)), throw=False)
    return sol.ys


@program("diffrax_neural_ode_backsolve", "diffrax",
         args=lambda: (eqx.nn.MLP(2, 2, 16, 1, activation=jnp.tanh, key=jax.random.PRNGKey(1)),
                       np.array([0.5, -0.3], np.float32)),
         rtol=2e-3, atol=2e-3, filter_jit=True,
         note="a neural ODE (equinox MLP vector field), loss gradient by BacksolveAdjoint")
def diffrax_neural_ode_backsolve(model, y0):
    def loss(m):
        sol = diffrax.diffeqsolve(diffrax.ODETerm(lambda t, y, args: args(y)), diffrax.Tsit5(),
                                  0.0, 1.0, 0.1, y0, args=m,
                                  adjoint=diffrax.BacksolveAdjoint(), throw=False)
        return jnp.sum(sol.ys[-1] ** 2)
    return eqx.filter_grad(loss)(model)


@program("diffrax_dense_interpolation", "diffrax", args=_lv_args, rtol=2e-3, atol=2e-3,
         note="SaveAt(dense=True) and sol.evaluate at 7 times")
def diffrax_dense_interpolation(y0, params):
    sol = diffrax.diffeqsolve(diffrax.ODETerm(_lotka), diffrax.Tsit5(), 0.0, 3.0, 0.1, y0,
                              args=params, saveat=diffrax.SaveAt(dense=True),
                              stepsize_controller=diffrax.PIDController(rtol=1e-5, atol=1e-5),
                              throw=False)
    return jax.vmap(sol.evaluate)(jnp.linspace(0.0, 3.0, 7))
