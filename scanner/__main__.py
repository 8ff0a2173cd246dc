from scanner.cli import main

main()
