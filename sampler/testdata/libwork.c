/* libwork.so: a library function reached through the PLT (stacks.c). */
long lib_spin(long n) {
	long s = 0;
	for (long i = 0; i < n; i++)
		s += (i * i) ^ (s >> 3);
	return s;
}
