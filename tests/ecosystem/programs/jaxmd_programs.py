"""jax-md as its users write it: a space (free or periodic), pair energies,
forces by autodiff, integrators' init/apply steps, minimisers."""

import jax
import jax.numpy as jnp
import numpy as np
from jax_md import energy, minimize, quantity, simulate, space

from ecosystem import key, program

BOX = 6.0


def _lattice(n_side=3, box=BOX, seed=220, jitter=0.05):
    g = (np.arange(n_side) + 0.5) * (box / n_side)
    pos = np.stack(np.meshgrid(g, g, g, indexing="ij"), -1).reshape(-1, 3)
    pos = pos + jitter * np.random.default_rng(seed).standard_normal(pos.shape)
    return (pos % box).astype(np.float32)


def _lattice2d(n_side=5, box=BOX, seed=221, jitter=0.05):
    g = (np.arange(n_side) + 0.5) * (box / n_side)
    pos = np.stack(np.meshgrid(g, g, indexing="ij"), -1).reshape(-1, 2)
    pos = pos + jitter * np.random.default_rng(seed).standard_normal(pos.shape)
    return (pos % box).astype(np.float32)


_DISP, _SHIFT = space.periodic(BOX)
_FREE_DISP, _FREE_SHIFT = space.free()


@program("jaxmd_lennard_jones_energy_forces", "jax-md", args=lambda: (_lattice(),),
         rtol=2e-4, atol=2e-5,
         note="periodic Lennard-Jones pair energy (27 particles) and forces by grad")
def jaxmd_lennard_jones_energy_forces(R):
    e = energy.lennard_jones_pair(_DISP, sigma=1.5, epsilon=1.0, r_cutoff=2.5)
    return e(R), quantity.force(e)(R)


@program("jaxmd_soft_sphere_2d", "jax-md", args=lambda: (_lattice2d(),), rtol=2e-4, atol=2e-5,
         note="soft-sphere energy and forces in a 2-D periodic box (25 disks)")
def jaxmd_soft_sphere_2d(R):
    e = energy.soft_sphere_pair(_DISP, sigma=1.4)
    return e(R), quantity.force(e)(R)


@program("jaxmd_morse_free_space", "jax-md", args=lambda: (_lattice(n_side=2, box=3.0),),
         rtol=2e-4, atol=2e-5, note="Morse pair energy in free space, per-particle energies")
def jaxmd_morse_free_space(R):
    e = energy.morse_pair(_FREE_DISP, sigma=1.2, epsilon=2.0, alpha=3.0, per_particle=True)
    return e(R)


@program("jaxmd_nve_steps", "jax-md", args=lambda: (_lattice(), key(222)), rtol=1e-3, atol=1e-4,
         note="velocity-Verlet NVE: init with a key, 10 apply steps under fori_loop")
def jaxmd_nve_steps(R, rng):
    e = energy.soft_sphere_pair(_DISP, sigma=1.6)
    init, apply = simulate.nve(e, _SHIFT, dt=1e-3)
    state = init(rng, R, kT=0.1)
    state = jax.lax.fori_loop(0, 10, lambda i, s: apply(s), state)
    return state.position, state.momentum, quantity.kinetic_energy(momentum=state.momentum)


@program("jaxmd_nvt_nose_hoover", "jax-md", args=lambda: (_lattice(), key(223)),
         rtol=1e-3, atol=1e-4, note="Nose-Hoover chain NVT: 5 steps (thermostat chain scans)")
def jaxmd_nvt_nose_hoover(R, rng):
    e = energy.lennard_jones_pair(_DISP, sigma=1.5, r_cutoff=2.5)
    init, apply = simulate.nvt_nose_hoover(e, _SHIFT, dt=1e-3, kT=0.5)
    state = init(rng, R)
    state = jax.lax.fori_loop(0, 5, lambda i, s: apply(s), state)
    return state.position, state.momentum


@program("jaxmd_nvt_langevin", "jax-md", args=lambda: (_lattice2d(), key(224)),
         rtol=1e-3, atol=1e-4, note="Langevin NVT (BAOAB): 5 steps with random kicks")
def jaxmd_nvt_langevin(R, rng):
    e = energy.soft_sphere_pair(_DISP, sigma=1.3)
    init, apply = simulate.nvt_langevin(e, _SHIFT, dt=1e-3, kT=0.2, gamma=0.5)
    state = init(rng, R)
    state = jax.lax.fori_loop(0, 5, lambda i, s: apply(s), state)
    return state.position


@program("jaxmd_brownian_step", "jax-md", args=lambda: (_lattice2d(), key(225)),
         rtol=1e-3, atol=1e-4, note="Brownian dynamics, 3 steps")
def jaxmd_brownian_step(R, rng):
    e = energy.soft_sphere_pair(_DISP, sigma=1.3)
    init, apply = simulate.brownian(e, _SHIFT, dt=1e-4, kT=0.1)
    state = init(rng, R)
    for _ in range(3):
        state = apply(state)
    return state.position


@program("jaxmd_fire_descent", "jax-md", args=lambda: (_lattice2d(jitter=0.3),),
         rtol=1e-3, atol=1e-4, note="FIRE minimisation: 20 steps under lax.scan")
def jaxmd_fire_descent(R):
    e = energy.soft_sphere_pair(_DISP, sigma=1.4)
    init, apply = minimize.fire_descent(e, _SHIFT, dt_start=1e-3, dt_max=1e-2)
    state = init(R)
    state, energies = jax.lax.scan(lambda s, _: (apply(s), e(s.position)), state, None, length=20)
    return state.position, energies


@program("jaxmd_gradient_descent", "jax-md", args=lambda: (_lattice2d(jitter=0.3),),
         rtol=1e-3, atol=1e-4, note="minimize.gradient_descent, 10 steps")
def jaxmd_gradient_descent(R):
    e = energy.soft_sphere_pair(_DISP, sigma=1.4)
    init, apply = minimize.gradient_descent(e, _SHIFT, step_size=1e-3)
    state = jax.lax.fori_loop(0, 10, lambda i, s: apply(s), init(R))
    return state


_NB_DISP, _ = space.periodic(8.0)
_NEIGHBOR_FN, _NB_ENERGY = energy.lennard_jones_neighbor_list(_NB_DISP, 8.0, sigma=1.5,
                                                               r_cutoff=2.5)


def _nbr_args():
    R = _lattice(n_side=4, box=8.0)
    # allocated on the host, as jax-md requires; updated inside the jitted step
    return _NEIGHBOR_FN.allocate(R), _lattice(n_side=4, box=8.0, seed=226, jitter=0.08)


@program("jaxmd_neighbor_list_energy", "jax-md", args=_nbr_args, rtol=2e-4, atol=2e-5,
         note="a neighbor list allocated outside, updated inside: Lennard-Jones by neighbors")
def jaxmd_neighbor_list_energy(nbrs, R):
    nbrs = nbrs.update(R)
    return (_NB_ENERGY(R, nbrs), quantity.force(_NB_ENERGY)(R, neighbor=nbrs),
            nbrs.did_buffer_overflow)


@program("jaxmd_bonds_forces_temperature", "jax-md", args=lambda: (_lattice(n_side=2, box=4.0),),
         rtol=2e-4, atol=2e-5,
         note="simple_spring_bond energy over a bond list, total forces, temperature")
def jaxmd_bonds_forces_temperature(R):
    disp, _ = space.periodic(4.0)
    bonds = jnp.array([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7]])
    e_bond = energy.simple_spring_bond(disp, bonds, length=1.5, epsilon=2.0)
    e_pair = energy.soft_sphere_pair(disp, sigma=1.0)
    total = lambda r, **kw: e_bond(r) + e_pair(r)
    mom = jnp.sin(R)
    return (e_bond(R), quantity.force(total)(R), quantity.kinetic_energy(momentum=mom),
            quantity.temperature(momentum=mom))
