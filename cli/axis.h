/* SPDX-License-Identifier: MIT */
/*
 * axis.h - what every picture's axes share: tick steps that read well.
 * Used by analyze's timelines and the planner's simulate and frontier SVGs,
 * so that all of memplan's pictures tick alike.
 */
#ifndef MEMPLAN_AXIS_H
#define MEMPLAN_AXIS_H

/* The smallest axis step of the form {1, 2, 5} x 10^k (k may be negative)
 * at least want; 1 for a want that is not positive. */
double axis_tick_step(double want);

#endif
