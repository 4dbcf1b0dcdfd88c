"""`python -m gradcli`: the same as the `gradcli` command."""
from gradcli.cli.app import main

if __name__ == "__main__":
    main()
