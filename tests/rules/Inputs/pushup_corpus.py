"""The YAML push-up (examples/rules/scan_pushup.yaml) against the built-in
--kiln-scan-pushup on every jaxpr of the JAX corpus (tests/jax/jaxprs) that
imports: the same IR after canonicalization.

usage: pushup_corpus.py KILN_TRANSLATE KILN_OPT SRC_ROOT WORKDIR
"""
import pathlib
import subprocess
import sys

translate, opt, root, work = sys.argv[1:5]
root, work = pathlib.Path(root), pathlib.Path(work)
work.mkdir(parents=True, exist_ok=True)
rules = root / "examples" / "rules" / "scan_pushup.yaml"
imported, different = 0, []
for jaxpr in sorted((root / "tests" / "jax" / "jaxprs").glob("*.jaxpr")):
    mlir = work / (jaxpr.stem + ".mlir")
    if subprocess.run([translate, "--import-jaxpr", str(jaxpr), "-o", str(mlir)],
                      capture_output=True).returncode:
        continue
    imported += 1
    common = [opt, str(mlir), "--canonicalize"]
    by_rules = subprocess.run(common + [f"--rules={rules}", "--rule-tags=+reassociates-float",
                                        "--kiln-apply-rules", "--canonicalize"],
                              capture_output=True, text=True)
    builtin = subprocess.run(common + ["--kiln-scan-pushup=reassociate=true", "--canonicalize"],
                             capture_output=True, text=True)
    if (by_rules.returncode, by_rules.stdout) != (builtin.returncode, builtin.stdout):
        different.append(jaxpr.stem)
print(f"imported {imported}, different {len(different)}: {' '.join(different)}")
sys.exit(1 if different or imported < 50 else 0)
