#include <profpack/profpack.h>
