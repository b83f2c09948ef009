#!/bin/sh
# memplan-plan compile --solution OUT.csv: MiniMalloc's output format, the
# input's rows and ids as given with an offset column, so that a tool
# outside memplan can check the answer on its own input (issue 16).  The
# checker below is independent of memplan: it reads both files, checks that
# every row is the input's with an offset, and that no two buffers live at
# the same time share a byte.
. tests/cli/lib.sh

if ! command -v python3 >/dev/null 2>&1; then
	skip "compile --solution" "no python3 for the independent checker"
	done_testing
	exit
fi
cat >"$T/check.py" <<'PY'
import sys
inp, out, pool = sys.argv[1], sys.argv[2], int(sys.argv[3])
def rows(path):
    with open(path, newline='') as f:
        lines = f.read().split('\n')
    body = []
    for ln in lines[1:]:
        if ln.endswith('\r'):
            ln = ln[:-1]
        if ln == '':
            break
        body.append(ln)
    return lines[0].rstrip('\r'), body
ih, ir = rows(inp)
oh, orr = rows(out)
icols = ih.lstrip('\ufeff').split(',')
alias = {'begin': 'lower', 'start': 'lower', 'end': 'upper', 'buffer': 'id', 'buffer_id': 'id'}
names = [alias.get(c, c) for c in icols]
appended = 'offset' not in names
if appended:
    assert oh == ih + ',offset', ('header', oh)
else:
    assert oh == ih, ('header', oh)
assert len(orr) == len(ir), ('rows', len(orr), len(ir))
col = {n: i for i, n in enumerate(names)}
oc = len(names) if appended else col['offset']
inclusive = 'end' in icols
bufs = []
for a, b in zip(ir, orr):
    fa, fb = a.split(','), b.split(',')
    if appended:
        assert fb[:-1] == fa, ('row changed', a, b)
    else:
        assert fb[:oc] + fb[oc + 1:] == fa[:oc] + fa[oc + 1:], ('row changed', a, b)
        assert fa[oc] == '' or fa[oc] == fb[oc], ('pinned offset moved', a, b)
    lo, up, size = int(fa[col['lower']]), int(fa[col['upper']]), int(fa[col['size']])
    up += inclusive
    off = int(fb[oc])
    if 'alignment' in col:
        assert off % int(fa[col['alignment']]) == 0, ('misaligned', b)
    bufs.append((lo, up, off, off + size, fa[col['id']]))
top = max(b[3] for b in bufs)
assert top == pool, ('pool', top, pool)
# gaps are resident in a plan: whole lifetimes must not share bytes
bufs.sort()
active = []
for lo, up, a, b, i in bufs:
    active = [x for x in active if x[1] > lo]
    for x in active:
        assert b <= x[2] or x[3] <= a, ('overlap', i, x[4])
    active.append((lo, up, a, b, i))
print('valid', len(bufs), 'buffers, pool', top)
PY

# compile IN -o PLAN --solution OUT.csv [opts], then the checker
solve() {
	in=$1
	what=$2
	shift 2
	expect 0 "compile --solution: $what" memplan-plan compile "$in" -o "$T/s.plan" --json --solution "$T/s.csv" "$@"
	pool=$(sed 's/.*"pool":\([0-9]*\).*/\1/' "$T/out")
	python3 "$T/check.py" "$in" "$T/s.csv" "$pool" >"$T/chk" 2>&1
	st=$?
	[ $st -ne 0 ] && sed 's/^/#   /' "$T/chk" | tail -3
	ok $st "  ... the input's rows with valid offsets, the plan's pool"
}

solve tests/fuzz/seeds/csv/small.csv "plain columns" --time-limit 0.2
solve tests/fuzz/seeds/csv/aliases.csv "aliases, alignment, gaps, inclusive end" --time-limit 0.2
has "$T/s.csv" "buffer,start,end,size,alignment,gaps,offset" "  ... the header as given, offset appended"
has "$T/s.csv" "x,0,10,4096,64,2-3 5-6@0:1024," "  ... a row as given"
solve tests/fuzz/seeds/csv/offsets.csv "its own offset column (pinned)" --time-limit 0.2
has "$T/s.csv" "c,2,7,50,100" "  ... the pinned offset stays in its column"
solve tests/fuzz/seeds/csv/small.csv "with --align 4096" --align 4096 --strategy best-fit

# a memplan trace: MiniMalloc's columns for the planned buffers
memplan-trace synth --model alexnet --batch 8 -o "$T/a.trace" >/dev/null 2>&1
ok $? "a synthetic trace"
expect 0 "compile --solution from a trace" memplan-plan compile "$T/a.trace" -o "$T/t.plan" --solution "$T/t.csv" --strategy best-fit
head -1 "$T/t.csv" | grep -Eq '^id,lower,upper,size(,alignment)?,offset$'
ok $? "  ... MiniMalloc's columns"
memplan-plan compile "$T/t.csv" -o "$T/t2.plan" --json --strategy best-fit >"$T/out" 2>"$T/err"
ok $? "  ... which memplan reads back (offsets as pinned)"
has "$T/out" '"gap_percent":' "  ... and plans"

# refusals, and nothing half-written
expect 2 "--solution is the input" memplan-plan compile tests/fuzz/seeds/csv/small.csv -o "$T/x.plan" --solution tests/fuzz/seeds/csv/small.csv
expect 2 "--solution - with --json" memplan-plan compile tests/fuzz/seeds/csv/small.csv -o "$T/x.plan" --solution - --json
expect 4 "--solution in a missing folder" memplan-plan compile tests/fuzz/seeds/csv/small.csv -o "$T/x.plan" --solution "$T/none/s.csv"
ls "$T/none" >/dev/null 2>&1
[ $? -ne 0 ]
ok $? "  ... leaves nothing behind"
[ ! -e "$T/x.plan" ]
ok $? "  ... not even the plan (issue 30: a failed --solution wrote it first)"
has "$T/err" "memplan-plan: error: cannot write" "  ... and says why"

# issue 30: a trace imported from a MiniMalloc CSV and stored as SQLite is
# not read as CSV (the format of the input decides, not its origin)
printf 'id,lower,upper,size\n0,0,10,1024\n1,3,7,1024\n2,1,9,512\n' >"$T/m.csv"
memplan-trace import --from minimalloc-csv "$T/m.csv" -o "$T/m.trace" >/dev/null 2>"$T/err"
ok $? "a MiniMalloc CSV imported as a trace"
expect 0 "compile --solution from it" \
	memplan-plan compile "$T/m.trace" -o "$T/m.plan" --solution "$T/ms.csv"
head -1 "$T/ms.csv" | grep -qx 'id,lower,upper,size,offset'
ok $? "  ... MiniMalloc's columns"
[ "$(wc -l <"$T/ms.csv")" -eq 4 ]
ok $? "  ... a row per buffer"
expect 0 "  ... and the plan verifies" memplan-plan verify "$T/m.plan" "$T/m.trace"

# the public instances, when they are here
if have_shared; then
	for f in "$SHARED_DATA"/placement/*.csv; do
		solve "$f" "${f##*/}" --time-limit 0.3
	done
else
	skip "compile --solution on the public instances" "$no_shared"
fi

done_testing
