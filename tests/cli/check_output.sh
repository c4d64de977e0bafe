# Sourced by the CLI contract scripts: `check NAME CODE TEXT COMMAND...` runs COMMAND and counts
# a pass when it exits with CODE and its output (stdout and stderr) contains TEXT (grep -F);
# otherwise it prints what it got. The caller reports $pass and $fail at the end.
pass=0
fail=0

check() { # name, expected exit code, expected text (grep -F), command...
  local name="$1" code="$2" text="$3"
  shift 3
  local out rc
  out="$("$@" 2>&1)"
  rc=$?
  if [ "$rc" -eq "$code" ] && grep -qF -- "$text" <<<"$out"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $name (exit $rc, wanted $code and '$text')"
    echo "$out" | head -5
  fi
}
