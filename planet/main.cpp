#include "planet/cli.h"

int main(int argc, char** argv) {
  return planet::runCli(argc, argv);
}
