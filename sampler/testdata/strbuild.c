/* strbuild: a string built by appending (method.md D140). append_all
 * builds, round after round, the concatenation of a list's names with
 * one strcat each: its string grows by 8 bytes per append to 64 KiB, past
 * model.StrLenBound (16 KiB). Its only number is that string's length.
 *
 * Usage: strbuild ROUNDS [NODES] (NODES default 8192: 64 KiB) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	struct node *next;
	const char *name;
};

__attribute__((noinline)) void append_all(char *buf, const struct node *head)
{
	buf[0] = '\0';
	for (const struct node *n = head; n != NULL; n = n->next)
		strcat(buf, n->name);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	int nodes = argc > 2 ? atoi(argv[2]) : 8192;
	struct node *list = calloc((size_t)nodes, sizeof *list);
	char *buf = malloc((size_t)nodes * 8 + 1);
	if (nodes < 1 || list == NULL || buf == NULL)
		return 1;
	for (int i = 0; i < nodes; i++) {
		list[i].next = i + 1 < nodes ? &list[i + 1] : NULL;
		list[i].name = "abcdefg,";
	}
	size_t sum = 0;
	for (int r = 0; r < rounds; r++) {
		append_all(buf, list);
		sum += strlen(buf);
	}
	printf("%zu\n", sum);
	return 0;
}
