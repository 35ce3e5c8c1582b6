"""bench/run's report (bench/harness.py, bench/report.py) on rows of every
kind the benchmarks produce: the console table, latest.json and the markdown
that --write-docs puts into docs/performance.md. (The rule-scale rows once
changed shape and bench/run crashed at its very end, after all its
measurements.)"""

import json
import sys
from pathlib import Path
from types import SimpleNamespace

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import harness  # noqa: E402


def fake_bench(results, monkeypatch):
    bench = SimpleNamespace(
        results=results, args=SimpleNamespace(quick=True), bin=Path("/nonexistent"),
        memory_rows=[("W3 large", "Kiln with push-up", 65536)],
        # label, cold, warm, call, XLA cold, XLA warm, samples
        compile_rows=[("seed 001 outer_fn", 0.030, 0.008, 1e-5, 0.061, 0.031, 5)])
    # The rule-scale rows as bench/rules_scale.py measures them: (ops,
    # (YAML wall, CPU), (C++ wall, CPU)).
    import rules_scale
    monkeypatch.setattr(rules_scale, "measure",
                        lambda opt, sizes: iter([(25000, (0.12, 0.14), (0.08, 0.10))]))
    harness.rules_scale(bench)
    return bench


def test_report_writes_every_table(tmp_path, capsys, monkeypatch):
    results = [
        harness.Result("W2", "[f32] copy floor", [0.005, 0.006], 2, True, 0.0, limit=True),
        harness.Result("W2", "[f32] Kiln", [0.009, 0.010, 0.011], 2, True, 1e-7,
                       floor_ratios=[0.6, 0.65]),
        harness.Result("W2", "[f32] XLA: jax.jit", [0.2, 0.25], 2, True, 1e-6),
    ]
    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n\n<!-- bench:begin -->\nstale table\n<!-- bench:end -->\n\nhand-written\n")
    args = SimpleNamespace(threads=2, quick=True, rounds=1, write_docs=str(doc))
    harness.report(fake_bench(results, monkeypatch), args, outdir=tmp_path)

    out = capsys.readouterr().out
    assert "25000 | 120.000 ms | 80.000 ms | 1.50x" in out
    data = json.loads((tmp_path / "latest.json").read_text())
    assert data["rules_scale"] == [{"ops": 25000, "yaml_s": 0.12, "cpp_s": 0.08,
                                    "yaml_cpu_s": 0.14, "cpp_cpu_s": 0.10}]
    assert [r["peer"] for r in data["results"]][0] == "[f32] copy floor"
    text = doc.read_text()
    assert "stale table" not in text and "hand-written" in text
    assert "[f32] Kiln" in text and "YAML / C++ CPU" in text
    # Kiln at 0.010 s against XLA's 0.25 s: 0.04x of XLA's time.
    assert "0.04x" in text


def fake_scaling_rows():
    """Rows as bench/compile_scaling.py's measure() yields them: the chain
    family with Kiln growing (its time per equation 3x from the smallest
    size to the largest it finished, then a timeout and a skipped size), the
    MLP family flat, one XLA error."""
    kiln = lambda cpu, linalg, llvm, codegen: {
        "cpu_s": cpu, "wall_s": cpu * 1.1, "compile_s": cpu * 0.9, "call_s": 1e-6,
        "phases_s": {"to_linalg": linalg, "to_llvm": llvm, "codegen": codegen, "link": 0.01}}
    xla = lambda cpu: {"cpu_s": cpu, "wall_s": cpu * 1.2, "process_cpu_s": cpu + 1.5}
    return [
        {"family": "chain", "size": 50, "equations": 300, "samples": 3,
         "kiln": kiln(0.3, 0.01, 0.1, 0.15), "xla": xla(0.9)},
        {"family": "chain", "size": 200, "equations": 1200, "samples": 1,
         "kiln": kiln(3.6, 0.04, 2.8, 0.6), "xla": xla(3.6)},
        {"family": "chain", "size": 400, "equations": 2400, "samples": 1,
         "kiln": {"timeout": True, "cpu_s": 119.5, "wall_s": 120.0}, "xla": xla(7.0)},
        {"family": "chain", "size": 800, "equations": 4800, "samples": 0,
         "kiln": {"skipped": "kiln past 120 s at 400"},
         "xla": {"skipped": "kiln past 120 s at 400"}},
        {"family": "mlp", "size": 10, "equations": 80, "samples": 3,
         "kiln": kiln(0.5, 0.004, 0.06, 0.4), "xla": xla(1.7)},
        {"family": "mlp", "size": 20, "equations": 160, "samples": 3,
         "kiln": kiln(1.0, 0.008, 0.12, 0.8), "xla": {"error": "RuntimeError: boom"}},
    ]


def test_compile_scaling_rows_and_growth():
    import compile_scaling as cs
    rows = [cs.flat_row(r) for r in fake_scaling_rows()]
    first = dict(zip(cs.ROW_KEYS, rows[0]))
    assert first == {"family": "chain", "size": 50, "equations": 300, "kiln_cpu_s": 0.3,
                     "kiln_wall_s": 0.3 * 1.1, "compile_wall_s": 0.3 * 0.9,
                     "to_linalg_s": 0.01, "to_llvm_s": 0.1, "codegen_s": 0.15, "link_s": 0.01,
                     "xla_cpu_s": 0.9, "xla_wall_s": 0.9 * 1.2, "xla_process_cpu_s": 0.9 + 1.5,
                     "status": ""}
    # The phases in CPU time: wall times the process's CPU / wall (1 / 1.1);
    # the rest: the process's wall outside the compile (0.33 - 0.27 s).
    phases = cs.phase_cpu(first)
    assert abs(phases["to_llvm_s"] - 0.1 / 1.1) < 1e-12
    assert abs(phases["rest_s"] - 0.06 / 1.1) < 1e-12
    cells = cs.format_cells(rows[0])
    assert len(cells) == len(cs.COLUMNS)
    # XLA / Kiln in CPU time; time per equation in ms.
    assert cells[:6] == ["chain", "n = 50", "300", "300.0 ms", "330.0 ms", "54.5 ms"]
    assert cells[-3:] == ["3.00x", "1.00 ms", "3.00 ms"]
    # The timeout: Kiln's CPU a lower bound, the ratio an upper one, no phases.
    timed_out = cs.format_cells(rows[2])
    assert timed_out[3] == "> 119.500 s" and timed_out[11] == "< 0.06x"
    assert timed_out[5:9] == ["-", "-", "-", "-"]
    skipped = dict(zip(cs.ROW_KEYS, rows[3]))
    assert skipped["kiln_cpu_s"] is None and skipped["status"] == "Kiln skipped; XLA skipped"
    assert "XLA error: RuntimeError: boom" in cs.format_cells(rows[5])[-1]

    growth = {g[0]: dict(zip(cs.GROWTH_KEYS, g)) for g in cs.growth(rows)}
    chain, mlp = growth["chain"], growth["mlp"]
    # chain: to the timed-out size, 119.5 s / 2400 over 0.3 s / 300: a lower bound.
    assert chain["equations_from"] == 300 and chain["equations_to"] == 2400
    assert abs(chain["kiln_growth"] - (119.5 / 2400) / (0.3 / 300)) < 1e-9
    assert chain["superlinear"] and "lower bound" in chain["note"]
    # the phases: from the finished sizes; to_llvm rose most per equation
    # (2.8/1200 over 0.1/300: 7x).
    assert chain["worst_phase"] == "bufferize + to LLVM dialect"
    assert abs(chain["worst_phase_growth"] - 7.0) < 1e-9
    assert abs(chain["xla_growth"] - (7.0 / 2400) / (0.9 / 300)) < 1e-9
    assert not mlp["superlinear"] and abs(mlp["kiln_growth"] - 1.0) < 1e-9
    assert mlp["xla_growth"] is None and abs(mlp["kiln_exponent"] - 1.0) < 1e-9
    assert mlp["worst_phase"] is None  # flat: no phase rose
    text = cs.format_growth(cs.growth(rows)[0])
    assert text[2].startswith("> ") and text[-1] == "SUPERLINEAR (Kiln timed out)"
    assert cs.format_growth(cs.growth(rows)[1])[-1] == "ok"


def test_compile_scaling_report(tmp_path, capsys, monkeypatch):
    """harness.compile_scaling on a fake measurement, then the report: the
    tables printed, in latest.json and in the markdown; the chart where
    matplotlib is installed."""
    import compile_scaling as cs
    monkeypatch.setattr(cs, "measure", lambda *a, **k: iter(fake_scaling_rows()))
    (tmp_path / "kiln-run").write_text("")
    bench = SimpleNamespace(
        results=[], memory_rows=[], bin=tmp_path, jax_python=sys.executable,
        jax_available=lambda: True,
        args=SimpleNamespace(quick=True, threads=2, compile_timeout=None))
    harness.compile_scaling(bench)
    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n\n<!-- bench:begin -->\n<!-- bench:end -->\n")
    args = SimpleNamespace(threads=2, quick=True, rounds=1, write_docs=str(doc))
    harness.report(bench, args, outdir=tmp_path)

    out = capsys.readouterr().out
    assert "SUPERLINEAR (Kiln timed out)" in out
    data = json.loads((tmp_path / "latest.json").read_text())
    assert [r["size"] for r in data["compile_scaling"]] == [50, 200, 400, 800, 10, 20]
    assert data["compile_scaling"][1]["to_llvm_s"] == 2.8
    assert [g["family"] for g in data["compile_scaling_growth"]] == ["chain", "mlp"]
    assert data["compile_scaling_growth"][0]["superlinear"] is True
    text = doc.read_text()
    assert "| chain | n = 50 | 300 | 300.0 ms |" in text
    assert "Compile time per equation: growth per family" in text
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "no matplotlib: no latest.compile-scaling.png" in out
    else:
        assert (tmp_path / "latest.compile-scaling.png").stat().st_size > 0
