#include "run.h"
int main(void){return 0;}
