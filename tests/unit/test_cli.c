/* SPDX-License-Identifier: MIT */
/*
 * test_cli.c - the library codes cli/ spells for itself (cli/ includes
 * nothing above it) against the libraries' own, trace_err and mp_plan_err,
 * and the exit status each maps to: the man pages' EXIT STATUS.
 */
#include "cli.h"
#include "plan.h"
#include "tap.h"
#include "trace.h"

int main(void)
{
	static const struct {
		int cli, trace, plan;
		const char *what;
	} codes[] = {
		{ CLI_LIB_OK, TRACE_OK, MP_PLAN_OK, "OK" },
		{ CLI_LIB_ENOMEM, TRACE_ENOMEM, MP_PLAN_ENOMEM, "ENOMEM" },
		{ CLI_LIB_EIO, TRACE_EIO, MP_PLAN_EIO, "EIO" },
		{ CLI_LIB_EFORMAT, TRACE_EFORMAT, MP_PLAN_EFORMAT, "EFORMAT" },
		{ CLI_LIB_EVERSION, TRACE_EVERSION, MP_PLAN_EVERSION, "EVERSION" },
		{ CLI_LIB_EINVAL, TRACE_EINVAL, MP_PLAN_EINVAL, "EINVAL" },
	};
	char what[96];
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		snprintf(what, sizeof(what), "CLI_LIB_%s is TRACE_%s",
			 codes[i].what, codes[i].what);
		CHECK_EQ_U64(codes[i].cli, codes[i].trace, what);
		snprintf(what, sizeof(what), "CLI_LIB_%s is MP_PLAN_%s",
			 codes[i].what, codes[i].what);
		CHECK_EQ_U64(codes[i].cli, codes[i].plan, what);
	}

	CHECK_EQ_U64(cli_exit_for(TRACE_OK, 0), MP_EXIT_OK, "OK exits 0");
	CHECK_EQ_U64(cli_exit_for(TRACE_ENOMEM, 0), MP_EXIT_INTERNAL,
		     "out of memory exits 5");
	CHECK_EQ_U64(cli_exit_for(TRACE_EINVAL, 0), MP_EXIT_USAGE,
		     "a caller error exits 2");
	CHECK_EQ_U64(cli_exit_for(TRACE_EIO, 0), MP_EXIT_INPUT,
		     "an input that cannot be read exits 3");
	CHECK_EQ_U64(cli_exit_for(TRACE_EIO, 1), MP_EXIT_OUTPUT,
		     "an output that cannot be written exits 4");
	CHECK_EQ_U64(cli_exit_for(TRACE_EFORMAT, 0), MP_EXIT_INPUT,
		     "a malformed input exits 3");
	CHECK_EQ_U64(cli_exit_for(TRACE_EVERSION, 1), MP_EXIT_INPUT,
		     "a newer format exits 3, output or not");
	CHECK_EQ_U64(cli_exit_for(MP_PLAN_EIO, 1), MP_EXIT_OUTPUT,
		     "a plan that cannot be written exits 4");
	return tap_done();
}
