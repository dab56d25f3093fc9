#include "app/cli.h"

int main(int argc, char** argv) {
  return app::runCli(argc, argv);
}
