# Coyote shell integration for PowerShell (PSReadLine): Alt+E turns the
# command line into a shell command written by `coyote -e`. Load it from
# your $PROFILE:
#   coyote --shell-integration powershell | Out-String | Invoke-Expression
Set-PSReadLineKeyHandler -Chord 'Alt+e' -BriefDescription 'coyote' -Description 'Replace the line with a command from coyote -e' -ScriptBlock {
    $line = $null
    $cursor = $null
    [Microsoft.PowerShell.PSConsoleReadLine]::GetBufferState([ref]$line, [ref]$cursor)
    if ([string]::IsNullOrWhiteSpace($line)) { return }
    $out = (coyote -e $line 2>$null | Out-String).TrimEnd()
    if ($LASTEXITCODE -eq 0 -and $out) {
        [Microsoft.PowerShell.PSConsoleReadLine]::Replace(0, $line.Length, $out)
        [Microsoft.PowerShell.PSConsoleReadLine]::SetCursorPosition($out.Length)
    }
}
