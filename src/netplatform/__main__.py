from netplatform.cli import main

main()
