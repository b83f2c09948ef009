#!/bin/sh
# make install / uninstall honour PREFIX and DESTDIR (commands, man pages,
# compare.sbatch in DATADIR/memplan); make compare refuses a missing folder.
. tests/cli/lib.sh

make -s install BUILD="$BUILD" DESTDIR="$T/stage" PREFIX=/opt/mp >"$T/out" 2>"$T/err"
ok $? "make install with DESTDIR and PREFIX"
[ -x "$T/stage/opt/mp/bin/memplan-trace" ]
ok $? "the command is installed under DESTDIR/PREFIX/bin"
[ -f "$T/stage/opt/mp/share/man/man1/memplan-trace.1" ]
ok $? "its man page is installed in man1"
[ -f "$T/stage/opt/mp/share/man/man5/memplan-trace.5" ]
ok $? "the trace format page is installed in man5"
[ -x "$T/stage/opt/mp/share/memplan/compare.sbatch" ]
ok $? "the Slurm job array of compare is installed in PREFIX/share/memplan"
"$T/stage/opt/mp/bin/memplan-trace" --version >/dev/null
ok $? "the installed command runs"
make -s uninstall BUILD="$BUILD" DESTDIR="$T/stage" PREFIX=/opt/mp >"$T/out" 2>"$T/err"
ok $? "make uninstall"
[ -z "$(find "$T/stage" -type f)" ]
ok $? "uninstall removes every file it installed"

# make compare with a folder that is not there fails, naming it
make -s compare BUILD="$BUILD" TRACES=/typo >"$T/out" 2>"$T/err"
[ $? -ne 0 ]
ok $? "make compare TRACES=/typo fails"
has "$T/err" "compare: no *.trace or *.csv in '/typo'" "  ... naming the folder"

done_testing
