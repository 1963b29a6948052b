/* main.c — ptop-record's entry point; everything happens in record_main (record/record.c). */
#include "record/record.h"

int main(int argc, char **argv)
{
	return record_main(argc, argv);
}
