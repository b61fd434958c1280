from lexcite.cli import main

main()
