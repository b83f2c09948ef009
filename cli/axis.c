/* SPDX-License-Identifier: MIT */
/*
 * axis.c - the tick steps of axis.h: decades of {1, 2, 5}.
 */
#include "axis.h"

double axis_tick_step(double want)
{
	double p = 1;
	if (!(want > 0))
		return 1;
	while (p > want)
		p /= 10;
	while (p * 10 <= want)
		p *= 10;
	return want <= p ? p : want <= 2 * p ? 2 * p : want <= 5 * p ? 5 * p : 10 * p;
}
