package skill

// Instructions point the model at the skill functions; they are added to
// the system message when skills are available, unless
// inject_skill_instructions is false (skill_instructions replaces them).
const Instructions = `## Skills

Skills are instruction sets for particular kinds of work (reviewing code, writing commits, debugging, planning, and whatever the user installed). Before you start a task of more than one step, call skill__list to see which skills exist here and what each is for. When one fits the task, call skill__load with its name: its instructions join this system message from your next request on, and it may give you more tools. Call skill__unload when you are done with it. Load only what the task needs.`

// Scaffold is the SKILL.md a new skill starts from (--skill NAME or
// .skill NAME for a name that does not exist yet).
const Scaffold = `---
# One line the model reads in skill__list to decide whether to load this skill.
description: 
# Tools and MCP servers this skill adds while it is loaded (a list, or "a,b").
enabled_tools:
enabled_mcp_servers:
# true drops the skill again after the turn it was loaded for.
auto_unload: false
---
Write what the model should know or do when this skill is loaded:
the method, the checks, the traps, what a good result looks like.
`
