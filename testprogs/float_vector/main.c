/*
 * float_vector - TIXI-183: "The problem before was the call to strcat,
 * which constantly had to compute the string length of the string to be
 * concatenated to. This led to a O(n^2) behavior. Now, we simply store
 * the location to insert the string." https://github.com/DLR-SC/tixi/pull/192
 * (closes issue 183; TIXI, the XML interface of DLR's CPACS aircraft
 * design tools, 2021: "up to a factor of 1000 faster for very large
 * vectors").
 *
 * The real bug: tixiAddFloatVector writes a vector of numbers as one XML
 * text element, "0.1;0.25;0.4". It sizes the string, then builds it with
 * one strcat per separator and per number, and each strcat walks the
 * whole string built so far to find its end ("Schlemiel the painter"):
 * a vector of n numbers costs n^2 / 2 bytes of strlen. The airfoil
 * profiles of a CPACS file (a hundred-odd points each) never show it; a
 * structural mesh's node coordinates (tens of thousands) make the writer
 * spend its time inside libc's strcat.
 *
 * Here (C, single thread): the exporter's request loop (main) writes one
 * aircraft model per request (export_model): its wings' sections, each an
 * airfoil profile of x, y and z vectors (tixiAddFloatVector, the ROOT
 * CAUSE, tixi.c), and, when the model has one, its mesh's coordinate
 * vectors. The slow run is the same binary on another input: normal:
 * 900 models with profiles of 150 points; buggy: the same models, and
 * every 100th carries a structural mesh of 40,000 nodes. Nearly all of
 * the slow time is in libc's strcat under tixiAddFloatVector; its own
 * variables are the string being built (a char *) and the loop's index.
 *
 * Usage: float_vector normal|buggy
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tixi.h"

struct workload {
	int models;        /* export requests */
	int sections;      /* wing sections per model */
	int points;        /* points per airfoil profile */
	int mesh_every;    /* every mesh_every-th model has a mesh (0: none) */
	int mesh_nodes;    /* nodes of a mesh */
};

static struct workload workload;

static unsigned int rng_state = 2021;

static unsigned int rng(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return (rng_state >> 8) & 0xffffff;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  normal: models with airfoil profiles of 150 points; buggy: every 100th model\n"
		"  also carries a structural mesh of 40,000 nodes.\n", argv0);
	return 2;
}

static void free_document(TixiDocument *doc)
{
	TixiElement *e = doc->first;
	while (e != NULL) {
		TixiElement *next = e->next;
		free(e->path);
		free(e->text);
		free(e->mapType);
		free(e);
		e = next;
	}
	doc->first = doc->last = NULL;
}

/* Writes one model: its profiles, then its mesh if it has one. */
static int export_model(TixiDocument *doc, int model, double *coords, int with_mesh)
{
	static const char *axes[3] = { "x", "y", "z" };
	char path[128];

	for (int s = 0; s < workload.sections; s++) {
		snprintf(path, sizeof path, "/cpacs/vehicles/aircraft/model[%d]/wings/wing/sections/section[%d]/profile",
			 model + 1, s + 1);
		for (int a = 0; a < 3; a++) {
			for (int p = 0; p < workload.points; p++)
				coords[p] = (double)(rng() % 100000) / 100000.0;
			if (tixiAddFloatVector(doc, path, axes[a], coords, workload.points) != SUCCESS)
				return -1;
		}
	}
	if (with_mesh) {
		snprintf(path, sizeof path, "/cpacs/vehicles/aircraft/model[%d]/structure/mesh/nodes", model + 1);
		for (int a = 0; a < 3; a++) {
			for (int p = 0; p < workload.mesh_nodes; p++)
				coords[p] = (double)(rng() % 1000000) / 1000.0;
			if (tixiAddFloatVector(doc, path, axes[a], coords, workload.mesh_nodes) != SUCCESS)
				return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		workload = (struct workload){ 900, 8, 150, 0, 40000 };
	else if (strcmp(argv[1], "buggy") == 0)
		workload = (struct workload){ 900, 8, 150, 100, 40000 };
	else
		return usage(argv[0]);

	int most = workload.points > workload.mesh_nodes ? workload.points : workload.mesh_nodes;
	double *coords = malloc((size_t)most * sizeof *coords);
	if (coords == NULL)
		return 1;
	size_t elements = 0, bytes = 0;
	unsigned long checksum = 0;
	for (int m = 0; m < workload.models; m++) {
		TixiDocument doc = { 0 };
		int with_mesh = workload.mesh_every > 0 && m % workload.mesh_every == workload.mesh_every - 1;
		if (export_model(&doc, m, coords, with_mesh) != 0) {
			fprintf(stderr, "float_vector: out of memory\n");
			return 1;
		}
		elements += doc.elements;
		bytes += doc.textBytes;
		checksum = checksum * 131 + doc.checksum;
		free_document(&doc);
	}
	free(coords);
	printf("float_vector %s: models=%d elements=%zu text=%zu checksum=%016lx\n", argv[1],
	       workload.models, elements, bytes, checksum);
	return 0;
}
