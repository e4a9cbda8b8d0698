"""clembench's AdventureGame instances played by clembench's rules (AdventureGame §3.2).

The paper's nine experiments are clembench's 144 instances (data under
`envs/adventure/data/clembench`, with their provenance). Their worlds are facts, and
their actions are PDDL definitions shipped with them; this package evaluates those
definitions the way clembench's interpreter does — preconditions in their written order,
the first one that fails decides the feedback, effects applied in order — and parses
commands with the instances' own Lark grammar snippets. The texts the player reads are
this project's own wording of the same information (docs/fidelity/adventure.md).

- `data`: loading the instances and the definition files they name;
- `pddl`: reading the PDDL strings into nested lists;
- `commands`: the command grammar and the parsing phase;
- `world`: the world state and the resolution phase;
- `texts`: room, entity and inventory descriptions and feedback sentences;
- `game`: one episode under clembench's game-master rules.
"""
