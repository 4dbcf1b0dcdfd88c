"""`python -m gradcli`: the same as the `gradcli` command."""
from gradcli.cli.entry import main

if __name__ == "__main__":
    main()
