#!/bin/sh
# memplan-plan frontier as a user sees it: on a terminal the progress is one
# line rewritten in place and erased, so the table shows once (in a log,
# one line per budget as before); in the SVG a strategy whose budgets all
# give the same plan shows one marker that says how many budgets it stands
# for, and the legend says how many distinct plans there are.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 4 -o "$T/r.trace" >/dev/null 2>"$T/err"
ok $? "a zoo trace"

# a log: one progress line per budget on stderr, the table on stdout
memplan-plan frontier "$T/r.trace" --step 20 >"$T/out" 2>"$T/log"
ok $? "frontier, stderr to a file"
[ "$(grep -c 'frontier: budget' "$T/log")" -eq 5 ]
ok $? "  ... one progress line per budget in the log"

# a terminal: what stays on the screen once the command is done
if command -v script >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	script -qec "memplan-plan frontier '$T/r.trace' --step 20 -o '$T/f.svg'" /dev/null >"$T/tty" 2>&1
	ok $? "frontier on a terminal (script(1))"
	python3 - "$T/tty" >"$T/screen" <<'PY'
import re, sys
# what a terminal shows: a carriage return goes back to the line's start,
# ESC[K erases to its end
for line in open(sys.argv[1], encoding='utf-8', errors='replace', newline='').read().split('\n'):
    row, col = [], 0
    for part in re.split(r'(\r|\x1b\[K)', line):
        if part == '\r':
            col = 0
        elif part == '\x1b[K':
            del row[col:]
        else:
            for ch in part:
                if col < len(row):
                    row[col] = ch
                else:
                    row.append(ch)
                col += 1
    print(''.join(row))
PY
	[ "$(grep -c 'frontier: budget' "$T/screen")" -eq 0 ]
	ok $? "  ... no progress line left on the screen"
	[ "$(grep -c '^swap frontier of' "$T/screen")" -eq 1 ] &&
		[ "$(grep -c '^  budget ' "$T/screen")" -eq 1 ]
	ok $? "  ... the table shows once"
	grep -q 'frontier: budget .* planned' "$T/tty"
	ok $? "  ... while progress was shown as it went"
else
	echo "ok - # SKIP script(1) or python3 not installed"
	memplan-plan frontier "$T/r.trace" --step 20 --quiet -o "$T/f.svg" >/dev/null
fi

# the SVG: vdnn plans the same at every budget
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$T/f.svg" 2>"$T/err"
	ok $? "the SVG is well-formed"
fi
sed -n '/<g class="strategy" id="s-vdnn" /,/<\/g>/p' "$T/f.svg" >"$T/vdnn"
[ "$(grep -c '<circle class="plan"' "$T/vdnn")" -eq 1 ]
ok $? "vdnn: one marker"
grep -q 'data-budgets="5"' "$T/vdnn" && grep -q '>&#215;5</text>' "$T/vdnn"
ok $? "  ... that says it stands for 5 budgets"
grep -q '<title>vdnn: the same plan at 5 budgets, 20% to 100%: pool ' "$T/vdnn"
ok $? "  ... and names them in its tooltip"
grep -q '>1 distinct plan</text>' "$T/vdnn"
ok $? "  ... the legend says 1 distinct plan"
n=$(sed -n '/<g class="strategy" id="s-memplan" /,/<\/g>/p' "$T/f.svg" | grep -c '<circle class="plan" data-budgets="1"')
[ "$n" -eq 5 ]
ok $? "memplan: 5 budgets, 5 markers of one budget each ($n)"

done_testing
