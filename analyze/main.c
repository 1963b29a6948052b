/* main.c — ptop-analyze's entry point: everything happens in analyze_main (analyze.c). */
#include "analyze/analyze.h"

int main(int argc, char **argv)
{
	return analyze_main(argc, argv);
}
