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
